// Inactivity and session re-check rules (SPEC sections 4 and 9), free of React and the DOM so
// tests drive it with fake timers. The app feeds it activity and visibility events.
const SESSION_LIMITS = {
  warnAfterMs: 25 * 60_000,
  logoutAfterMs: 30 * 60_000,
  countdownSeconds: 300,
  validateThrottleMs: 30_000,
} as const;

export interface SessionMonitorDeps {
  /** Re-checks the session with the server (GET /api/auth/validate-session). */
  validate(): Promise<unknown> | void;
  /** Logs out because of inactivity. */
  logout(): void;
  /** Seconds left on the warning countdown, or null when no warning is shown. */
  onWarning: (secondsLeft: number | null) => void;
  limits?: Partial<typeof SESSION_LIMITS>;
  now?: () => number;
}

export interface SessionMonitor {
  start(): void;
  stop(): void;
  activity(): void;
  visible(): void;
  stayLoggedIn(): void;
  logoutNow(): void;
  readonly running: boolean;
}

export function createSessionMonitor(deps: SessionMonitorDeps): SessionMonitor {
  const limits = { ...SESSION_LIMITS, ...deps.limits };
  const now = deps.now ?? (() => Date.now());
  let warnTimer: ReturnType<typeof setTimeout> | null = null;
  let logoutTimer: ReturnType<typeof setTimeout> | null = null;
  let countdown: ReturnType<typeof setInterval> | null = null;
  let secondsLeft: number | null = null;
  let lastActivity = 0;
  let lastValidated = 0;
  let running = false;

  const clearTimers = (): void => {
    if (warnTimer) clearTimeout(warnTimer);
    if (logoutTimer) clearTimeout(logoutTimer);
    if (countdown) clearInterval(countdown);
    warnTimer = logoutTimer = countdown = null;
  };

  const hideWarning = (): void => {
    if (secondsLeft !== null) {
      secondsLeft = null;
      deps.onWarning(null);
    }
  };

  const expire = (): void => {
    if (!running) return;
    running = false;
    clearTimers();
    hideWarning();
    deps.logout();
  };

  const showWarning = (): void => {
    secondsLeft = limits.countdownSeconds;
    deps.onWarning(secondsLeft);
    countdown = setInterval(() => {
      if (secondsLeft === null) return;
      secondsLeft -= 1;
      if (secondsLeft <= 0) expire();
      else deps.onWarning(secondsLeft);
    }, 1000);
  };

  const arm = (): void => {
    clearTimers();
    lastActivity = now();
    warnTimer = setTimeout(showWarning, limits.warnAfterMs);
    logoutTimer = setTimeout(expire, limits.logoutAfterMs);
  };

  const validateThrottled = (): void => {
    if (now() - lastValidated < limits.validateThrottleMs) return;
    lastValidated = now();
    void deps.validate();
  };

  return {
    get running() {
      return running;
    },
    start() {
      if (running) return;
      running = true;
      lastValidated = now(); // the load-time validation just happened
      arm();
    },
    stop() {
      running = false;
      clearTimers();
      hideWarning();
    },
    activity() {
      // While the warning is up only its buttons count: a stray mouse move must not hide it.
      if (!running || secondsLeft !== null) return;
      arm();
      validateThrottled();
    },
    visible() {
      if (!running) return;
      // Background tabs throttle timers, so the deadline is checked against the clock too.
      if (now() - lastActivity >= limits.logoutAfterMs) {
        expire();
        return;
      }
      lastValidated = now();
      void deps.validate();
    },
    stayLoggedIn() {
      if (!running) return;
      hideWarning();
      arm();
    },
    logoutNow() {
      expire();
    },
  };
}
