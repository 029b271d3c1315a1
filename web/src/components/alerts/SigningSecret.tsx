// A webhook's signing secret: the field in the edit form (fetched on request) and the notice shown
// once, right after a webhook method is created.
import { useState } from 'react';

export function SigningSecret({ load, initial }: { load?: () => Promise<string | null>; initial?: string }) {
  const [secret, setSecret] = useState<string | null>(initial ?? null);
  return (
    <div className="field">
      <label>Signing secret</label>
      {secret ? (
        <div className="secret-box" data-testid="signing-secret">{secret}</div>
      ) : (
        <button type="button" className="btn btn-secondary btn-sm" onClick={() => void load?.().then(setSecret)}>Show signing secret</button>
      )}
      <p className="hint">Verify the webhook-signature header with this secret (Standard Webhooks).</p>
    </div>
  );
}

export function NewSigningSecretNotice({ secret, onDismiss }: { secret: string; onDismiss: () => void }) {
  return (
    <div className="alert alert-success signing-secret-notice" role="status">
      <p><strong>Webhook signing secret</strong>: every webhook is signed (Standard Webhooks: <code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>). Verify it with this secret; you can show it again from the edit form.</p>
      <div className="secret-box" data-testid="new-signing-secret">{secret}</div>
      <button type="button" className="btn btn-secondary btn-sm" onClick={onDismiss}>Dismiss</button>
    </div>
  );
}
