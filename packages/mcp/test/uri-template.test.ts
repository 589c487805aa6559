import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UriTemplate } from '../dist/uri-template.js';
import { McpRegistrationError } from '../dist/index.js';

// RFC 6570 §1.2 / §3.2 examples (levels 1-3), with the variables the RFC uses.
const vars = { var: 'value', hello: 'Hello World!', path: '/foo/bar', empty: '', x: '1024', y: '768', list: ['red', 'green', 'blue'] };
const expansions: [string, string][] = [
  ['{var}', 'value'],
  ['{hello}', 'Hello%20World%21'],
  ['{+var}', 'value'],
  ['{+hello}', 'Hello%20World!'],
  ['{+path}/here', '/foo/bar/here'],
  ['here?ref={+path}', 'here?ref=/foo/bar'],
  ['X{#var}', 'X#value'],
  ['X{#hello}', 'X#Hello%20World!'],
  ['map?{x,y}', 'map?1024,768'],
  ['{x,hello,y}', '1024,Hello%20World%21,768'],
  ['{+x,hello,y}', '1024,Hello%20World!,768'],
  ['{+path,x}/here', '/foo/bar,1024/here'],
  ['{#x,hello,y}', '#1024,Hello%20World!,768'],
  ['X{.var}', 'X.value'],
  ['X{.x,y}', 'X.1024.768'],
  ['{/var}', '/value'],
  ['{/var,x}/here', '/value/1024/here'],
  ['{;x,y}', ';x=1024;y=768'],
  ['{;x,y,empty}', ';x=1024;y=768;empty'],
  ['{?x,y}', '?x=1024&y=768'],
  ['{?x,y,empty}', '?x=1024&y=768&empty='],
  ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
  ['{&x,y,empty}', '&x=1024&y=768&empty='],
  ['{?undef}', ''],
  ['{/list}', '/red,green,blue'],
];

test('expand: the RFC 6570 level 1-3 examples', () => {
  for (const [template, expected] of expansions) assert.equal(new UriTemplate(template).expand(vars), expected, template);
});

test('match inverts expansion for resource URIs', () => {
  const cases: [string, string, Record<string, string>][] = [
    ['fw://rooms/{roomId}', 'fw://rooms/lobby', { roomId: 'lobby' }],
    ['fw://rooms/{roomId}', 'fw://rooms/caf%C3%A9', { roomId: 'café' }],
    ['file:///{+path}', 'file:///src/app/main.ts', { path: 'src/app/main.ts' }],
    ['fw://files{/dir,name}', 'fw://files/docs/readme', { dir: 'docs', name: 'readme' }],
    ['fw://search{?q,lang}', 'fw://search?q=mcp&lang=en', { q: 'mcp', lang: 'en' }],
    ['fw://search{?q,lang}', 'fw://search?lang=fr&q=caf%C3%A9', { q: 'café', lang: 'fr' }],
    ['fw://search{?q,lang}', 'fw://search?q=only', { q: 'only' }],
    ['fw://doc/{name}{.ext}', 'fw://doc/report.pdf', { name: 'report', ext: 'pdf' }],
    ['fw://map{;x,y}', 'fw://map;x=1;y=2', { x: '1', y: '2' }],
    ['fw://page{#section}', 'fw://page#intro', { section: 'intro' }],
    ['fw://list?fixed=1{&page}', 'fw://list?fixed=1&page=3', { page: '3' }],
  ];
  for (const [template, uri, expected] of cases) assert.deepEqual(new UriTemplate(template).match(uri), expected, `${template} ← ${uri}`);
  assert.equal(new UriTemplate('fw://rooms/{roomId}').match('fw://rooms/a/b'), undefined, '{var} does not span a /');
  assert.equal(new UriTemplate('fw://rooms/{roomId}').match('fw://rooms/'), undefined, 'a simple variable is not empty');
  assert.equal(new UriTemplate('fw://doc/{name}{.ext}').match('fw://other/x.pdf'), undefined);
  for (const template of ['fw://search{?q,lang}', 'file:///{+path}', 'fw://files{/dir,name}', 'fw://doc/{name}{.ext}']) {
    const t = new UriTemplate(template);
    const values = { q: 'a b', lang: 'en', path: 'x/y z', dir: 'd', name: 'n', ext: 'md' };
    const chosen = Object.fromEntries(t.variables.map((v) => [v, values[v as keyof typeof values]]));
    assert.deepEqual(t.match(t.expand(chosen)), chosen, `round trip of ${template}`);
  }
});

test('level-4 modifiers and malformed templates are refused at registration', () => {
  for (const bad of ['fw://{var:3}', 'fw://{list*}', 'fw://{unclosed', 'fw://{a b}']) {
    assert.throws(() => new UriTemplate(bad), McpRegistrationError, bad);
  }
});

/**
 * The matcher that served resources/read before the linear one (a JavaScript RegExp per
 * template, which V8 backtracks): the oracle the new matcher must agree with on every input.
 */
function regexMatch(template: string, uri: string): Record<string, string> | undefined {
  const groups: ({ kind: 'var'; name: string } | { kind: 'query' })[] = [];
  const queryVars = new Set<string>();
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const v = (name: string, chars: string) => {
    groups.push({ kind: 'var', name });
    return `(${chars})`;
  };
  let pattern = '^';
  for (const piece of template.split(/(\{[^}]*\})/)) {
    if (!piece.startsWith('{')) {
      pattern += esc(piece);
      continue;
    }
    let body = piece.slice(1, -1);
    const op = '+#./;?&'.includes(body[0]!) ? body[0]! : '';
    if (op) body = body.slice(1);
    const [first, ...rest] = body.split(',') as [string, ...string[]];
    if (op === '')
      pattern += `${v(first, rest.length ? '[^/?#,]*?' : '[^/?#,]+?')}${rest.map((n) => `(?:,${v(n, '[^/?#,]*?')})?`).join('')}`;
    else if (op === '+' || op === '#') {
      const chars = op === '+' ? '[^?#]*' : '.*';
      const b = `${v(first, rest.length ? '[^,]*' : chars)}${rest.map((n, i) => `(?:,${v(n, i === rest.length - 1 ? chars : '[^,]*')})?`).join('')}`;
      pattern += op === '#' ? `(?:#${b})?` : b;
    } else if (op === '.') pattern += [first, ...rest].map((n) => `(?:\\.${v(n, '[^/?#.]*')})?`).join('');
    else if (op === '/') pattern += [first, ...rest].map((n) => `(?:/${v(n, '[^/?#]*')})?`).join('');
    else if (op === ';') pattern += [first, ...rest].map((n) => `(?:;${esc(n)}(?:=${v(n, '[^;/?#]*')})?)?`).join('');
    else {
      for (const n of [first, ...rest]) queryVars.add(n);
      groups.push({ kind: 'query' });
      pattern += `(?:${esc(op)}([^#]*))?`;
    }
  }
  const m = new RegExp(`${pattern}$`).exec(uri);
  if (!m) return undefined;
  const decode = (raw: string) => {
    try {
      return decodeURIComponent(raw);
    } catch {
      return raw;
    }
  };
  const out: Record<string, string> = {};
  groups.forEach((g, i) => {
    const raw = m[i + 1];
    if (raw === undefined) return;
    if (g.kind === 'var') out[g.name] = decode(raw);
    else
      for (const pair of raw.split('&')) {
        if (pair === '') continue;
        const eq = pair.indexOf('=');
        const key = decode(eq < 0 ? pair : pair.slice(0, eq));
        if (queryVars.has(key) && out[key] === undefined) out[key] = decode(eq < 0 ? '' : pair.slice(eq + 1));
      }
  });
  return out;
}

test('the linear matcher agrees with the RegExp matcher it replaced on 40,000 seeded templates and URIs', () => {
  let seed = 0x6570;
  const rand = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
  const pick = <T>(xs: readonly T[]): T => xs[rand(xs.length)]!;
  const ops = ['', '', '+', '#', '.', '/', ';', '?', '&'];
  const literals = ['fw://', 'a', 'x/', '.', '/', '-', ':', '?k=1', ''];
  const alphabet = 'ab./?#,;=&%-\n';
  let matched = 0;
  for (let i = 0; i < 4000; i++) {
    let template = pick(['fw://', 'notes://', '']);
    let names = 0;
    for (let parts = 1 + rand(4); parts > 0; parts--) {
      if (rand(3) === 0) template += pick(literals);
      const vars = Array.from({ length: 1 + rand(3) }, () => `v${names++}`);
      template += `{${pick(ops)}${vars.join(',')}}`;
    }
    const t = new UriTemplate(template);
    for (let j = 0; j < 10; j++) {
      // Half are expansions (so that they match), half random strings around the template's characters.
      const uri =
        j % 2 === 0
          ? t.expand(Object.fromEntries(t.variables.map((v) => [v, Array.from({ length: rand(4) }, () => pick([...alphabet])).join('')])))
          : Array.from({ length: rand(14) }, () => pick([...alphabet, ...template])).join('');
      const expected = regexMatch(template, uri);
      assert.deepEqual(t.match(uri), expected, `${JSON.stringify(template)} ← ${JSON.stringify(uri)}`);
      if (expected) matched++;
    }
  }
  assert.ok(matched > 10_000, `enough of the cases match (${matched}) for the captures to be compared`);
});
