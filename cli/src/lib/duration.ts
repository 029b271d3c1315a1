import { CliError } from '../errors';

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** '30m' → 1800, '24h' → 86400, '7d', '1h30m'; a bare number or an unknown unit is refused. */
export function parseDuration(text: string): number {
  const input = text.trim().toLowerCase();
  const parts = [...input.matchAll(/(\d+)([smhdw])/g)];
  const consumed = parts.map((p) => p[0]).join('');
  if (parts.length === 0 || consumed !== input) {
    throw new CliError('usage', `Invalid duration '${text}': use a number and a unit (s, m, h, d, w), e.g. 30m, 24h, 7d`);
  }
  const seconds = parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_SECONDS[p[2]], 0);
  if (seconds <= 0) throw new CliError('usage', `Invalid duration '${text}': must be longer than 0`);
  return seconds;
}

/** 86400 → '1d', 5400 → '1h30m': the short form parseDuration accepts. */
export function formatDuration(seconds: number): string {
  let rest = Math.round(seconds);
  if (rest <= 0) return '0s';
  const out: string[] = [];
  for (const [unit, size] of [['d', 86_400], ['h', 3600], ['m', 60], ['s', 1]] as const) {
    if (rest >= size) {
      out.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return out.join('');
}
