import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import { Field, hintId } from './Field';

describe('Field', () => {
  it('labels its control, describes it with the hint and announces an error', () => {
    render(
      <Field id="f-email" label="Email" hint="We never share it" error="Please enter a valid email address">
        <input id="f-email" aria-describedby={hintId('f-email')} />
      </Field>,
    );
    const input = screen.getByLabelText('Email');
    expect(input).toHaveAccessibleDescription('We never share it');
    expect(screen.getByRole('alert')).toHaveTextContent('Please enter a valid email address');
  });
  it('shows neither hint nor error when none is given', () => {
    const { container } = render(<Field id="f-name" label="Name"><input id="f-name" /></Field>);
    expect(container.querySelector('.field')?.children).toHaveLength(2);
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
