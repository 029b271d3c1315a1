// Email over SMTP with nodemailer (SMTP_URL, SMTP_FROM): a text and an HTML part. 5xx SMTP
// answers are final, everything else (4xx, connection trouble) is retried.
import nodemailer, { type Transporter } from 'nodemailer';
import { renderHtml, renderMessage } from '../render';
import type { Channel, SendOutcome } from '../types';

export const EMAIL_NOT_CONFIGURED = 'Email is not configured on this server';

export function createEmailChannel(deps: { smtpUrl: string | null; from: string | null; publicUrl: string | null }): Channel {
  let transport: Transporter | null = null;
  return {
    async send(message, config): Promise<SendOutcome> {
      if (!deps.smtpUrl || !deps.from) return { ok: false, final: true, error: EMAIL_NOT_CONFIGURED };
      transport ??= nodemailer.createTransport(deps.smtpUrl, { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 } as never);
      const m = renderMessage(message.event, deps.publicUrl, message.ack_url ?? null);
      try {
        await transport.sendMail({
          from: deps.from,
          to: config.email_address,
          subject: m.title,
          text: m.text,
          html: renderHtml(m, 'email'),
          messageId: `<${message.id}@upfleet>`,
          headers: { 'X-Upfleet-Idempotency-Key': message.id },
        });
        return { ok: true };
      } catch (err) {
        const e = err as Error & { responseCode?: number; response?: string };
        const error = `SMTP: ${e.response ?? e.message}`;
        return { ok: false, final: typeof e.responseCode === 'number' && e.responseCode >= 500, error };
      }
    },
  };
}
