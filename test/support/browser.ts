// Debian's Chromium driven by playwright-core, on this closed network: the launch flags keep
// Chromium from reaching out (background networking, component updates, sync), and playwright's
// launch() gives every run a fresh, empty user-data dir. No browser is ever downloaded.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { projectRoot } from './opencode-sandbox.js';

export const CHROMIUM = '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Expected Debian's Chromium at ${CHROMIUM}: apt-get install -y chromium (.ci/run installs it).`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    timeout: 20_000,
  });
}

/** Where tests put what they want a human to look at (gitignored). */
export function outputDir(name: string): string {
  const dir = join(projectRoot, 'test-results', name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Width and height from a PNG's IHDR chunk; throws when the bytes are no PNG. */
export function pngSize(png: Buffer): { width: number; height: number } {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (!png.subarray(0, 8).equals(signature) || png.toString('latin1', 12, 16) !== 'IHDR') throw new Error('Expected a PNG file (signature and IHDR chunk).');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** How many distinct colours the PNG has, decoded by the browser itself in a blank page. */
export async function distinctColours(browser: Browser, png: Buffer): Promise<number> {
  const page = await browser.newPage();
  try {
    // Runs in the page: the browser's globals, which Node's types do not declare.
    return await page.evaluate(async (base64) => {
      const { Image, document } = globalThis as unknown as BrowserGlobals;
      const image = new Image();
      image.src = `data:image/png;base64,${base64}`;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.naturalWidth;
      canvas.height = image.naturalHeight;
      const context = canvas.getContext('2d')!;
      context.drawImage(image, 0, 0);
      const pixels = new Uint32Array(context.getImageData(0, 0, canvas.width, canvas.height).data.buffer);
      return new Set(pixels).size;
    }, png.toString('base64'));
  } finally {
    await page.close();
  }
}

interface BrowserGlobals {
  Image: new () => { src: string; naturalWidth: number; naturalHeight: number; decode(): Promise<void> };
  document: {
    createElement(tag: 'canvas'): {
      width: number;
      height: number;
      getContext(kind: '2d'): { drawImage(image: unknown, x: number, y: number): void; getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null;
    };
  };
}

/** A full-page screenshot written to `path`; returns its bytes. */
export async function screenshot(page: Page, path: string): Promise<Buffer> {
  const png = await page.screenshot({ fullPage: true });
  writeFileSync(path, png);
  return png;
}
