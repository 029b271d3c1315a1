import { describe, expect, it } from 'vitest';
import { grpc } from '@upfleet/proto';
import { createBackoff } from './backoff';
import { classifyLinkError, LinkFatalError } from './errors';

describe('backoff', () => {
  it('grows from 2 s to 30 s and starts over after reset', () => {
    const mid = createBackoff({ random: () => 0.5 });
    expect([1, 2, 3, 4, 5, 6].map(() => mid.next())).toEqual([2000, 4000, 8000, 16000, 30000, 30000]);
    mid.reset();
    expect(mid.next()).toBe(2000);
  });

  it('jitters every delay but stays within 2 s and 30 s', () => {
    const lo = createBackoff({ random: () => 0 });
    const hi = createBackoff({ random: () => 0.999 });
    const los = Array.from({ length: 8 }, () => lo.next());
    const his = Array.from({ length: 8 }, () => hi.next());
    expect(Math.min(...los)).toBeGreaterThanOrEqual(2000);
    expect(Math.max(...his)).toBeLessThanOrEqual(30000);
    expect(his[1]).toBeGreaterThan(los[1]);
  });
});

describe('classifyLinkError', () => {
  const err = (code: grpc.status, details = 'x') => Object.assign(new Error(details), { code, details });
  it('treats revoked credentials and tokens as fatal', () => {
    expect(classifyLinkError(err(grpc.status.UNAUTHENTICATED), 'session').kind).toBe('fatal');
    expect(classifyLinkError(err(grpc.status.PERMISSION_DENIED), 'session').kind).toBe('fatal');
    expect(classifyLinkError(err(grpc.status.UNAUTHENTICATED), 'register').message).toMatch(/bootstrap token/);
    expect(classifyLinkError(new LinkFatalError('pin'), 'session').kind).toBe('fatal');
  });
  it('treats outages and everything else as transient', () => {
    for (const c of [grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED, grpc.status.INTERNAL, grpc.status.CANCELLED]) {
      expect(classifyLinkError(err(c), 'session').kind).toBe('transient');
    }
    expect(classifyLinkError(new Error('socket hang up'), 'session').kind).toBe('transient');
  });
});
