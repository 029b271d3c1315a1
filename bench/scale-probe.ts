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
  const figures = () => {
    const rss = process.memoryUsage.rss();
    maxRss = Math.max(maxRss, rss);
    const cpu = process.cpuUsage();
    return JSON.stringify({
      p99_ms: h.count ? h.percentile(99) / 1e6 : 0, max_ms: h.count ? h.max / 1e6 : 0, samples: h.count,
      rss_mb: rss / 1e6, max_rss_mb: maxRss / 1e6, cpu_ms: (cpu.user + cpu.system) / 1000,
    });
  };
  // Written off the loop: on a loaded machine a synchronous write and rename took ~10 ms each time,
  // and would have counted as the control plane's own loop delay.
  let writing = false;
  const writeAsync = () => {
    if (writing) return;
    writing = true;
    const text = figures();
    void fs.promises.writeFile(`${file}.tmp`, text).then(() => fs.promises.rename(`${file}.tmp`, file)).catch(() => undefined).finally(() => {
      writing = false;
    });
  };
  const writeSync = () => {
    fs.writeFileSync(`${file}.tmp`, figures());
    fs.renameSync(`${file}.tmp`, file);
  };
  setInterval(writeAsync, 500).unref();
  process.on('SIGUSR2', () => {
    h.reset();
    maxRss = 0;
    writeSync();
  });
  process.on('exit', writeSync);
}
