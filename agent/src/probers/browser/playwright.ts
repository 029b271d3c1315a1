// Where Playwright comes from. It is ~5 MB of script: loaded on the first browser check only, so an
// agent without browser checks never parses it. The single executable carries it as an asset of
// its own (agent/sea/main.ts sets the loader below); under node or tsx it is the package.
type PlaywrightCore = typeof import('playwright-core');

let loaded: Promise<PlaywrightCore> | undefined;

export function loadPlaywright(): Promise<PlaywrightCore> {
  if (loaded) return loaded;
  const fromExecutable = (globalThis as { __upfleetLoadPlaywright?: () => PlaywrightCore }).__upfleetLoadPlaywright;
  const p = fromExecutable ? Promise.resolve().then(fromExecutable) : import('playwright-core');
  // a failed load (say, a cache dir that went away) is tried again by the next check
  p.catch(() => {
    if (loaded === p) loaded = undefined;
  });
  loaded = p;
  return p;
}
