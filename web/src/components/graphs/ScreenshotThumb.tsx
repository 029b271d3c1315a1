// A screenshot of a browser check: fetched with the authorised client as a Blob (the image route
// needs the session's token, so no plain <img src> URL) and shown from a blob: URL; a click opens
// it full size.
import { useEffect, useState } from 'react';
import type { ScreenshotInfo } from '@upfleet/proto/rest';
import { useServices } from '../../app-context';
import { formatDateTime } from '../../lib/format';
import { Modal } from '../Modal';

export function ScreenshotThumb({ urlId, shot }: { urlId: number; shot: ScreenshotInfo }) {
  const { api } = useServices();
  const [src, setSrc] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  const [open, setOpen] = useState(false);

  useEffect(() => {
    let live = true;
    let url: string | null = null;
    (api.blob?.(`/api/users/endpoints/${urlId}/screenshots/${shot.id}`) ?? Promise.resolve(null))
      .then((blob) => {
        if (!live) return;
        if (!blob) return setFailed(true);
        url = URL.createObjectURL(blob);
        setSrc(url);
      })
      .catch(() => live && setFailed(true));
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [api, urlId, shot.id]);

  const label = `Screenshot "${shot.name}"${shot.step ? ` at step ${shot.step}` : ''}, ${formatDateTime(shot.taken_at)}`;
  return (
    <figure className="screenshot-thumb" data-testid="screenshot-thumb">
      {src ? (
        <button type="button" className="screenshot-open" onClick={() => setOpen(true)} aria-label={`Open ${label} full size`}>
          <img src={src} alt={label} loading="lazy" />
        </button>
      ) : (
        <div className="screenshot-placeholder muted small">{failed ? 'Screenshot unavailable' : 'Loading…'}</div>
      )}
      <figcaption className="muted small">{shot.name}{shot.step ? ` · step ${shot.step}` : ''} · {formatDateTime(shot.taken_at)}</figcaption>
      {open && src && (
        <Modal title={label} onClose={() => setOpen(false)} size="full">
          <img className="screenshot-full" src={src} alt={label} data-testid="screenshot-full" />
        </Modal>
      )}
    </figure>
  );
}
