import pino, { type Logger } from 'pino';

export type { Logger };

/** JSON logs; pretty when a person is watching a terminal. */
export function createLogger(level: string, name = 'control-plane'): Logger {
  const pretty = process.stdout.isTTY && process.env.NODE_ENV !== 'test';
  return pino({
    name,
    level,
    redact: ['req.headers.authorization', '*.password', '*.refreshToken', '*.secret'],
    ...(pretty ? { transport: { target: 'pino-pretty', options: { colorize: true, ignore: 'pid,hostname' } } } : {}),
  });
}
