// Heartbeats in Debian's chromium against the real control plane: a Free account picks the
// heartbeat kind, a cron with its time zone shows its next five runs, the heartbeat is created;
// its ping URL and the crontab line for its cron show at once and in its edit form (copy buttons),
// its row waits for the first ping without a heartbeat:// link, and a ping turns the row up.
import { describe, expect, it } from 'vitest';
import { useBrowserStack } from '../helpers/browser-stack';
import { hasChromium, signUp } from './screenshots';

const browserOk = hasChromium();
const d = browserOk ? describe : describe.skip;
const title = browserOk ? 'heartbeat form in chromium' : 'heartbeat form in chromium (skipped: /usr/bin/chromium is missing)';

d(title, () => {
  const env = useBrowserStack();

  it('creates a cron heartbeat with its next runs, shows its ping URL, and a ping turns it up', async () => {
    const { page, stack } = env;
    const base = stack.baseUrl;
    await signUp(page, base, { username: 'beats', email: 'beats@example.com', password: 'correct-horse-1' });
    await page.getByRole('button', { name: 'Add Endpoint' }).first().click();
    let dialog = page.getByRole('dialog', { name: 'Add Endpoint' });
    await dialog.getByRole('radio', { name: /Heartbeat/ }).click();
    expect(await dialog.getByLabel('URL').count()).toBe(0);
    await dialog.getByLabel('Name').fill('Nightly backup');
    await dialog.getByRole('radio', { name: /Cron expression/ }).click();
    await dialog.getByLabel(/^Cron \(/).fill('30 2 * * *');
    await dialog.getByLabel('Time zone').fill('Europe/Berlin');
    expect(await dialog.getByLabel('Next runs').getByRole('listitem').count()).toBe(5);
    await dialog.getByLabel(/^Cron \(/).fill('30 2 * *');
    await dialog.getByRole('button', { name: 'Add Endpoint' }).click();
    await dialog.getByText('cron must have five fields: minute hour day-of-month month day-of-week').waitFor();
    await dialog.getByLabel(/^Cron \(/).fill('30 2 * * *');
    await dialog.getByRole('button', { name: 'Add Endpoint' }).click();
    await dialog.waitFor({ state: 'detached' });
    // At once: the ping URL and the lines for this cron, each with a copy button.
    const created = page.getByRole('dialog', { name: 'Heartbeat created' });
    const firstUrl = await created.getByLabel('Ping URL').inputValue();
    expect(firstUrl).toMatch(new RegExp(`^${base}/ping/[A-Za-z0-9_-]{32}$`));
    expect(await created.getByLabel('crontab line', { exact: true }).innerText()).toBe(`CRON_TZ=Europe/Berlin\n30 2 * * * /usr/local/bin/backup.sh && curl -fsS -m 10 --retry 5 ${firstUrl}`);
    await created.getByRole('button', { name: 'Copy the crontab line' }).click();
    await created.getByRole('button', { name: 'Copy the crontab line: copied' }).waitFor();
    await created.getByRole('button', { name: 'Done' }).click();
    await created.waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'Nightly backup', exact: true }).waitFor();
    // Before the first ping: its schedule instead of a heartbeat:// link, and no uptime yet.
    const row = page.getByRole('listitem', { name: /^Nightly backup:/ });
    expect(await row.locator('a[href^="heartbeat:"]').count()).toBe(0);
    expect(await row.innerText()).not.toMatch(/heartbeat:\/\/|100\.00%/);
    await row.getByText('Waiting for the first ping').waitFor();

    await page.getByRole('button', { name: 'Edit Nightly backup' }).click();
    dialog = page.getByRole('dialog', { name: 'Edit Endpoint' });
    const pingUrl = dialog.getByLabel('Ping URL');
    await pingUrl.waitFor();
    const url = await pingUrl.inputValue();
    expect(url).toMatch(new RegExp(`^${base}/ping/[A-Za-z0-9_-]{32}$`));
    expect(await dialog.getByLabel('Time zone').inputValue()).toBe('Europe/Berlin');
    expect(url).toBe(firstUrl);
    // The modal fits its content: the long ping URL and lines wrap, nothing scrolls sideways.
    expect(await page.evaluate<number>("(() => { const b = document.querySelector('[role=dialog] .modal-body'); return b.scrollWidth - b.clientWidth; })()")).toBeLessThanOrEqual(0);
    await dialog.getByRole('button', { name: 'Copy', exact: true }).click();
    await dialog.getByRole('button', { name: 'Copied', exact: true }).waitFor();
    // The crontab line follows the heartbeat's own cron (it read "0 3 * * *" whatever the schedule).
    await dialog.getByText(`30 2 * * * /usr/local/bin/backup.sh && curl -fsS -m 10 --retry 5 ${url}`).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    expect((await fetch(url, { method: 'POST', body: 'backup done' })).status).toBe(200);
    await page.reload();
    await page.getByLabel('Nightly backup: Up').waitFor();
  }, 180_000);
});
