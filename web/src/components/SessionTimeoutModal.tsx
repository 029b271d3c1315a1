import { useStore } from 'zustand';
import { useServices } from '../app-context';
import { Modal } from './Modal';

const formatCountdown = (s: number): string => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;

export function SessionTimeoutModal() {
  const { sessionUi, session } = useServices();
  const seconds = useStore(sessionUi, (s) => s.warningSeconds);
  if (seconds === null) return null;
  return (
    <Modal
      title="Session Timeout Warning"
      onClose={() => session.stayLoggedIn()}
      dismissable={false}
      size="sm"
      footer={
        <>
          <button type="button" className="btn btn-secondary" onClick={() => session.logoutNow()}>Logout Now</button>
          <button type="button" className="btn btn-primary" onClick={() => session.stayLoggedIn()}>Stay Logged In</button>
        </>
      }
    >
      <p>You have been inactive for a while. For your security you will be logged out in</p>
      <p className="countdown" aria-live="polite" data-testid="session-countdown">{formatCountdown(seconds)}</p>
      <p className="muted">Choose Stay Logged In to continue your session.</p>
    </Modal>
  );
}
