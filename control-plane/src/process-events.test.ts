import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { handleProcessEvents, type StopReason } from './process-events';

function setup() {
  const lines: Array<Record<string, any>> = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const proc = new EventEmitter();
  const stops: Array<[StopReason, number]> = [];
  handleProcessEvents(proc, pino({ level: 'info' }, sink), (reason, code) => stops.push([reason, code]));
  return { proc, lines, stops };
}

describe('process events', () => {
  it('logs an unhandled rejection with its reason and keeps serving', async () => {
    const { proc, lines, stops } = setup();
    proc.emit('unhandledRejection', new Error('notification send failed'), Promise.resolve());
    await new Promise((r) => setImmediate(r));
    expect(stops).toEqual([]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, msg: 'unhandled promise rejection (the control plane keeps serving)' });
    expect(lines[0].err.message).toBe('notification send failed');
  });

  it('stops gracefully with exit code 1 after an uncaught exception, and with 0 on SIGTERM, SIGINT and SIGHUP', async () => {
    const { proc, lines, stops } = setup();
    proc.emit('uncaughtException', new Error('bug'));
    for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) proc.emit(s);
    await new Promise((r) => setImmediate(r));
    expect(stops).toEqual([['uncaughtException', 1], ['SIGTERM', 0], ['SIGINT', 0], ['SIGHUP', 0]]);
    expect(lines[0]).toMatchObject({ level: 60, msg: 'uncaught exception: stopping' });
    expect(lines.some((l) => l.signal === 'SIGHUP')).toBe(true);
  });
});
