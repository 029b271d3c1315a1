// A status page's custom domain: the DNS records that point it here and prove it is the owner's
// (TXT _upfleet-challenge.{domain} = the page's token), whether it is verified, and a Verify button.
import { useState } from 'react';
import type { DomainVerification, StatusPage } from '@upfleet/proto/rest';
import { useServices } from '../../app-context';

export function DomainProof({ page }: { page: StatusPage }) {
  const { api } = useServices();
  const domain = page.custom_domain!;
  const [verified, setVerified] = useState(page.custom_domain_verified);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const verify = async () => {
    setBusy(true);
    setNote(null);
    const r = await api.post<DomainVerification>(`/api/users/status-pages/${page.id}/verify-domain`);
    setBusy(false);
    if (!r.success) return setNote({ ok: false, text: r.error });
    setVerified(r.data.custom_domain_verified);
    setNote(r.data.found
      ? { ok: true, text: `Record found: ${domain} now shows this page.` }
      : { ok: false, text: 'Record not found yet. DNS changes can take a while to appear; try again later.' });
  };
  return (
    <div className="card domain-proof" aria-label="Custom domain verification">
      <p>
        <strong>{domain}</strong>{' '}
        <span className={`badge ${verified ? 'badge-green' : 'badge-grey'}`} data-domain-verified={String(verified)}>{verified ? 'Verified' : 'Not verified'}</span>
      </p>
      <p className="hint">
        {verified ? 'Served at this domain; the record is checked again daily, so keep it.' : 'The page is served at this domain once this DNS record is found:'}
      </p>
      <dl className="domain-record">
        <dt>Type</dt><dd><code>TXT</code></dd>
        <dt>Name</dt><dd><code>_upfleet-challenge.{domain}</code></dd>
        <dt>Value</dt><dd><code>{page.custom_domain_token}</code></dd>
      </dl>
      <p className="hint">Point the domain itself (CNAME or A record) at this server.</p>
      {note && <div className={`alert ${note.ok ? 'alert-success' : 'alert-error'}`} role="status">{note.text}</div>}
      <button type="button" className="btn btn-sm btn-secondary" disabled={busy} onClick={() => void verify()}>{busy ? 'Checking…' : 'Verify'}</button>
    </div>
  );
}

