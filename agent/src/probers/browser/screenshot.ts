// A screenshot within the size cap: the viewport as PNG, or as WebP (lossy, then smaller) when the
// PNG is too large. Fields a secret was typed into are masked in either form.
import type { Screenshot } from '@upfleet/proto';
import { LIMITS_BROWSER } from '@upfleet/proto/browser-steps';
import type { Page } from 'playwright-core';

export async function takeScreenshot(page: Page, name: string, step: number, secretSelectors: string[], timeout: number): Promise<Screenshot | null> {
  const png = await page.screenshot({ type: 'png', timeout, mask: secretSelectors.map((s) => page.locator(s)), animations: 'disabled' });
  if (png.length <= LIMITS_BROWSER.screenshotBytes) return { name, mime: 'image/png', data: png, step };
  // Playwright writes PNG or JPEG only; Chromium's own capture writes WebP.
  const cdp = await page.context().newCDPSession(page);
  // CSS selectors of secret fields hidden while Chromium captures (text=/role= ones have no CSS form).
  const css = secretSelectors.filter((s) => !/^\s*(text|role)\s*=/.test(s)).join(',');
  if (css) {
    await page.evaluate(`(() => { const st = document.createElement('style'); st.id = 'upfleet-mask'; st.textContent = ${JSON.stringify(`${css} { visibility: hidden !important; }`)}; document.head.append(st); })()`).catch(() => {});
  }
  try {
    for (const [quality, scale] of [[70, 1], [40, 1], [40, 0.5], [25, 0.35]] as const) {
      const view = page.viewportSize() ?? { width: 1280, height: 800 };
      const r = await cdp.send('Page.captureScreenshot', { format: 'webp', quality, clip: { x: 0, y: 0, width: view.width, height: view.height, scale } });
      const data = Buffer.from(r.data, 'base64');
      if (data.length <= LIMITS_BROWSER.screenshotBytes) return { name, mime: 'image/webp', data, step };
    }
    return null;
  } finally {
    if (css) await page.evaluate(`document.getElementById('upfleet-mask')?.remove()`).catch(() => {});
    await cdp.detach().catch(() => {});
  }
}
