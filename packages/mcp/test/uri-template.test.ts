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
