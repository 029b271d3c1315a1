// The one form-field markup: label, control, hint and error, wired by id (label htmlFor, aria-describedby).
import type { ReactNode } from 'react';

export const hintId = (id: string) => `${id}-hint`;

export function Field({ id, label, hint, error, className, children }: {
  id: string;
  label: ReactNode;
  /** Shown under the control; the control should set `aria-describedby={hintId(id)}`. */
  hint?: ReactNode;
  /** A message about this field, announced as an alert. */
  error?: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className={className ? `field ${className}` : 'field'}>
      <label htmlFor={id}>{label}</label>
      {children}
      {hint && <p id={hintId(id)} className="hint">{hint}</p>}
      {error && <p className="field-error" role="alert">{error}</p>}
    </div>
  );
}
