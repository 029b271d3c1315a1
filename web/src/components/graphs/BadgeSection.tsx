// An endpoint's README badges in its graphs view: a preview, the Markdown to paste, and a rotation
// that ends the old URLs. The server answers only editors and above; for others the section is absent.
import { useEffect, useState } from 'react';
import type { BadgeResource } from '@upfleet/proto/schemas';
import { useServices } from '../../app-context';
import { copyText } from '../../lib/clipboard';

export function BadgeSection({ urlId }: { urlId: number }) {
  const { api } = useServices();
  const [badge, setBadge] = useState<BadgeResource | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    let live = true;
    api.get<BadgeResource>(`/api/users/endpoints/${urlId}/badge`)
      .then((r) => live && r.success && r.data && setBadge(r.data))
      .catch(() => undefined); // the graphs still show without it
    return () => {
      live = false;
    };
  }, [api, urlId]);

  const rotate = async () => {
    if (!window.confirm('Make new badge URLs? The current badges stop working at once; update your READMEs with the new Markdown.')) return;
    const r = await api.post<BadgeResource>(`/api/users/endpoints/${urlId}/badge/rotate`);
    if (r.success && r.data) {
      setBadge(r.data);
      setCopied(false);
      setNote('New badge URLs made: the old ones no longer work.');
    } else setNote(r.success ? 'No badge came back' : r.error ?? 'Could not make new badge URLs');
  };

  if (!badge) return null;
  return (
    <section className="card badge-section" aria-label="Badge">
      <h3>Badge</h3>
      <p className="muted small">Show this endpoint&apos;s status and uptime in a README. Anyone with the URLs sees these two figures, nothing else.</p>
      <p className="badge-preview">
        <img src={badge.status_url} alt="status badge" height={20} /> <img src={badge.uptime_urls['30d']} alt="uptime badge" height={20} />
      </p>
      <label className="field-label" htmlFor={`badge-md-${urlId}`}>Markdown</label>
      <div className="input-group">
        <input id={`badge-md-${urlId}`} className="input mono" readOnly value={badge.markdown} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" className="btn btn-secondary btn-sm" onClick={() => void copyText(badge.markdown).then(() => setCopied(true))}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <p className="muted small">Uptime windows: append <code>?window=24h</code>, <code>7d</code> or <code>30d</code> to the uptime URL.</p>
      <button type="button" className="btn btn-secondary btn-sm" onClick={() => void rotate()}>Rotate badge URLs</button>
      {note && <p className="small" role="status">{note}</p>}
    </section>
  );
}
