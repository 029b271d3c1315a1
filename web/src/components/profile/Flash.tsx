// A settings card's one-line outcome: a success (status) or an error (alert).
export type Msg = { kind: 'success' | 'error'; text: string } | null;

export function Flash({ msg }: { msg: Msg }) {
  if (!msg) return null;
  return <div className={`alert alert-${msg.kind}`} role={msg.kind === 'error' ? 'alert' : 'status'}>{msg.text}</div>;
}
