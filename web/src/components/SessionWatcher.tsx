// Connects the session monitor to the page: starts it while signed in, feeds it user activity
// and tab visibility.
import { useEffect } from 'react';
import { useAuth, useServices } from '../app-context';

const ACTIVITY_EVENTS = ['mousedown', 'keydown', 'scroll', 'touchstart', 'wheel'] as const;

export function SessionWatcher() {
  const { session } = useServices();
  const signedIn = useAuth((s) => s.status === 'authenticated');

  useEffect(() => {
    if (!signedIn) return;
    session.start();
    let lastMove = 0;
    const onActivity = () => session.activity();
    const onMove = () => {
      // mousemove fires constantly; one report a second is plenty.
      const t = Date.now();
      if (t - lastMove > 1000) {
        lastMove = t;
        session.activity();
      }
    };
    const onVisible = () => document.visibilityState === 'visible' && session.visible();
    ACTIVITY_EVENTS.forEach((e) => window.addEventListener(e, onActivity, { passive: true }));
    window.addEventListener('mousemove', onMove, { passive: true });
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      ACTIVITY_EVENTS.forEach((e) => window.removeEventListener(e, onActivity));
      window.removeEventListener('mousemove', onMove);
      document.removeEventListener('visibilitychange', onVisible);
      session.stop();
    };
  }, [signedIn, session]);

  return null;
}
