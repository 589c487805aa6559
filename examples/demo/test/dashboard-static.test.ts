/**
 * Checks of the dashboard's static files that need no browser (they run where Chromium is
 * missing too): every module parses, the page references only files that exist, carries no
 * inline script, style or event handler, and no module builds markup from strings.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { REPO_ROOT } from './dashboard-helpers.js';

const DIR = `${REPO_ROOT}packages/admin/dashboard/`;
const modules = readdirSync(DIR).filter((f) => f.endsWith('.js'));
const html = readFileSync(`${DIR}index.html`, 'utf8');

test('every dashboard module parses', () => {
  assert.ok(modules.includes('app.js'));
  for (const m of modules) execFileSync(process.execPath, ['--check', `${DIR}${m}`]);
});

test('index.html references only files that exist, and preloads every module', () => {
  const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((r) => !/^(data:|#|\/|https?:)/.test(r));
  for (const r of refs) assert.ok(existsSync(`${DIR}${r}`), `missing ${r}`);
  const preloaded = new Set([...html.matchAll(/rel="modulepreload" href="([^"]+)"/g)].map((m) => m[1]!));
  assert.deepEqual(
    modules.filter((m) => m !== 'app.js' && !preloaded.has(m)),
    [],
    'modules missing a modulepreload',
  );
});

test('no inline script, style or handler in the page, and no HTML built from strings', () => {
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'inline <script>');
  assert.doesNotMatch(html, /<style\b/, 'inline <style>');
  assert.doesNotMatch(html, /\sstyle="/, 'style attribute');
  assert.doesNotMatch(html, /\son[a-z]+="/, 'event handler attribute');
  for (const m of modules) {
    const src = readFileSync(`${DIR}${m}`, 'utf8');
    assert.doesNotMatch(
      src,
      /\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|\beval\(|new Function\(/,
      `${m} builds markup or code from strings`,
    );
  }
});
