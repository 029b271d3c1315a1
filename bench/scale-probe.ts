// Loaded into the control-plane process by bench/scale.ts (`node --import tsx --import this`):
// measures the event loop from inside (perf_hooks monitorEventLoopDelay) and writes the figures to
// UPFLEET_BENCH_PROBE_FILE twice a second and at exit, so the control plane itself needs no debug hook.
// SIGUSR2 starts a new measurement window (the bench sends it once the process serves).
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.UPFLEET_BENCH_PROBE_FILE;
if (file) {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  let maxRss = 0;
  const write = () => {
    const rss = process.memoryUsage.rss();
    maxRss = Math.max(maxRss, rss);
    const cpu = process.cpuUsage();
    fs.writeFileSync(`${file}.tmp`, JSON.stringify({
      p99_ms: h.count ? h.percentile(99) / 1e6 : 0, max_ms: h.count ? h.max / 1e6 : 0, samples: h.count,
      rss_mb: rss / 1e6, max_rss_mb: maxRss / 1e6, cpu_ms: (cpu.user + cpu.system) / 1000,
    }));
    fs.renameSync(`${file}.tmp`, file);
  };
  setInterval(write, 500).unref();
  process.on('SIGUSR2', () => {
    h.reset();
    maxRss = 0;
    write();
  });
  process.on('exit', write);
}
