// A password field with a show/hide toggle (SPEC section 4: login, signup, password change).
import { useState } from 'react';
import { Field, hintId } from './Field';
import { EyeIcon, EyeOffIcon } from './Icons';

export function PasswordInput({ id, value, onChange, autoComplete, label, hint }: {
  id: string;
  value: string;
  onChange: (v: string) => void;
  autoComplete: string;
  label: string;
  hint?: string;
}) {
  const [shown, setShown] = useState(false);
  return (
    <Field id={id} label={label} hint={hint}>
      <div className="input-with-button">
        <input id={id} type={shown ? 'text' : 'password'} value={value} onChange={(e) => onChange(e.target.value)} autoComplete={autoComplete} required aria-describedby={hint ? hintId(id) : undefined} />
        <button type="button" className="input-button" aria-label={shown ? 'Hide password' : 'Show password'} aria-pressed={shown} onClick={() => setShown((s) => !s)}>
          {shown ? <EyeOffIcon /> : <EyeIcon />}
        </button>
      </div>
    </Field>
  );
}
