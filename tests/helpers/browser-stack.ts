// One control plane and one chromium page for a browser test file: built web app, stack on port 0,
// a page with a 20 s default timeout; all stopped after the file. Read them inside tests.
import { afterAll, beforeAll } from 'vitest';
import type { Page } from 'playwright-core';
import { ensureWebBuild, launchBrowser } from '../e2e/screenshots';
import { startStack, type Stack, type StackOptions } from './start-stack';

export interface BrowserStack {
  readonly stack: Stack;
  readonly page: Page;
}

export function useBrowserStack(opts: StackOptions = {}): BrowserStack {
  let stack: Stack | undefined;
  let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
  let page: Page | undefined;
  beforeAll(async () => {
    ensureWebBuild();
    stack = await startStack(opts);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(20_000);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });
  return {
    get stack() {
      if (!stack) throw new Error('the stack starts in beforeAll');
      return stack;
    },
    get page() {
      if (!page) throw new Error('the page opens in beforeAll');
      return page;
    },
  };
}
