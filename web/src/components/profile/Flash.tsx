// A settings card's one-line outcome: a success (status) or an error (alert), and the call that sets it.
import { useState } from 'react';
import type { ApiResult } from '../../api/client';

export type Msg = { kind: 'success' | 'error'; text: string } | null;

export function Flash({ msg }: { msg: Msg }) {
  if (!msg) return null;
  return <div className={`alert alert-${msg.kind}`} role={msg.kind === 'error' ? 'alert' : 'status'}>{msg.text}</div>;
}

/** Texts of one settings call (SPEC section 7): on success, on a refusal without text, on a network failure. */
export interface FlashTexts { ok: string; failed: string; crashed: string }

/** Runs a settings call and shows its outcome: the success text, the server's error (or `failed`), or `crashed`. */
export function useFlashCall() {
  const [msg, setMsg] = useState<Msg>(null);
  const [busy, setBusy] = useState(false);
  const run = async (call: () => Promise<ApiResult<unknown>>, texts: FlashTexts, onOk?: () => void) => {
    setBusy(true);
    setMsg(null);
    try {
      const res = await call();
      if (res.success) {
        onOk?.();
        setMsg({ kind: 'success', text: texts.ok });
      } else setMsg({ kind: 'error', text: res.error || texts.failed });
    } catch {
      setMsg({ kind: 'error', text: texts.crashed });
    }
    setBusy(false);
  };
  return { msg, setMsg, busy, run };
}
