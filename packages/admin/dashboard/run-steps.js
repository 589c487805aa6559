// Step-through of one run: previous / next over its steps (input, model requests and outputs,
// tool calls, handoffs, end), each shown whole: messages, model text, tool arguments and results
// as pretty-printed JSON, all as text (run-text.js marks invisible characters).

import { h, replace, setText } from './dom.js';
import { clock, cost, dateTime, duration, num } from './format.js';
import { contentBlock, visible } from './run-text.js';

const KIND_LABEL = {
  input: 'Input',
  'model-request': 'Model request',
  'model-response': 'Model output',
  'tool-call': 'Tool call',
  handoff: 'Handoff',
  end: 'End',
};
const KIND_CLASS = { input: '', 'model-request': 'accent', 'model-response': 'accent', 'tool-call': 'a2a', handoff: 'warn', end: 'ok' };

/** @param {HTMLElement} container */
export function createStepper(container) {
  let steps = [];
  let index = 0;
  let outlined = false;
  const position = h('span', { class: 'muted step-position', attrs: { 'aria-live': 'polite' } });
  const prev = h('button', { type: 'button', class: 'small', text: '‹ Previous step', on: { click: () => go(index - 1) } });
  const next = h('button', { type: 'button', class: 'small', text: 'Next step ›', on: { click: () => go(index + 1) } });
  const body = h('div', { class: 'step-body', attrs: { tabindex: '0', 'aria-label': 'Step content' } });
  const bar = h('div', { class: 'step-bar', attrs: { role: 'group', 'aria-label': 'Step through the run' } }, prev, position, next);
  replace(container, bar, body);
  // Arrow keys step while the stepper has focus (the buttons or the content).
  container.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement) return;
    if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
      e.preventDefault();
      go(index + (e.key === 'ArrowRight' ? 1 : -1));
    }
  });

  function go(i) {
    if (!steps.length) return;
    index = Math.max(0, Math.min(steps.length - 1, i));
    render();
  }

  function render() {
    prev.disabled = index <= 0;
    next.disabled = index >= steps.length - 1;
    if (!steps.length) {
      setText(position, '');
      replace(body, h('p', { class: 'empty', text: 'No steps recorded.' }));
      return;
    }
    const step = steps[index];
    setText(position, `Step ${num(index + 1)} of ${num(steps.length)}`);
    container.dataset.seq = String(step.seq);
    container.dataset.kind = step.kind;
    replace(body, outlined ? renderOutline(step) : renderStep(step));
  }

  return {
    /** `outline`: the steps carry structure only (no content role): each says what it leaves out. */
    setSteps(list, seq, outline = false) {
      steps = list ?? [];
      outlined = outline;
      const at = seq === undefined ? -1 : steps.findIndex((s) => s.seq === seq);
      index = at >= 0 ? at : Math.min(index, Math.max(0, steps.length - 1));
      render();
    },
    /** Shows the step `seq` of the current run. */
    show(seq) {
      const at = steps.findIndex((s) => s.seq === seq);
      if (at >= 0) go(at);
    },
    clear(message) {
      steps = [];
      index = 0;
      prev.disabled = next.disabled = true;
      setText(position, '');
      delete container.dataset.seq;
      replace(body, h('p', { class: 'empty', text: message }));
    },
  };
}

const field = (label, ...value) => [h('dt', { text: label }), h('dd', {}, ...value)];

function stepHead(step) {
  return h(
    'div',
    { class: 'step-head' },
    h('span', { class: `badge ${KIND_CLASS[step.kind] ?? ''}`.trim(), text: KIND_LABEL[step.kind] ?? step.kind }),
    h('span', { class: 'muted', text: ` #${step.seq} at ${clock(step.at)}`, title: dateTime(step.at) }),
    step.durationMs === null || step.durationMs === undefined
      ? null
      : h('span', { class: 'muted', text: ` · ${duration(step.durationMs)}` }),
  );
}

/** A step of the outline: its structure, and a line saying the content is not shown and why. */
function renderOutline(step) {
  const b = step.body ?? {};
  const facts = [];
  if (b.provider !== undefined) facts.push(field('Provider', b.provider ?? '—'), field('Model', b.model ?? '—'));
  if (b.messageCount !== undefined) facts.push(field('Messages in the request', num(b.messageCount)));
  if (b.tools) facts.push(field('Tools offered', b.tools.join(', ') || '—'));
  if (b.finishReason !== undefined) facts.push(field('Finish', b.finishReason ?? '—'));
  if (b.usage !== undefined)
    facts.push(field('Tokens', b.usage ? `${num(b.usage.inputTokens ?? 0)} in / ${num(b.usage.outputTokens ?? 0)} out` : '—'));
  if (typeof step.cost === 'number') facts.push(field('Cost', cost(step.cost)));
  if (b.toolCalls?.length) facts.push(field('Tool calls requested', b.toolCalls.map((c) => c.toolName).join(', ')));
  if (b.toolName !== undefined) facts.push(field('Tool', h('code', {}, visible(b.toolName))), field('Outcome', b.ok ? 'ok' : 'failed'));
  if (b.from !== undefined) facts.push(field('From', visible(b.from)), field('To', visible(b.to)));
  if (b.state !== undefined) facts.push(field('State', b.state));
  if (b.historyLength !== undefined) facts.push(field('Earlier messages', num(b.historyLength)));
  if (b.failed) facts.push(field('Error', 'yes (its text is content)'));
  return [
    stepHead(step),
    facts.length ? h('dl', { class: 'facts' }, facts) : null,
    h('p', {
      class: 'muted content-hidden',
      text: "Content not shown: messages, model output, tool arguments and results need the 'operator' role.",
    }),
  ];
}

function renderStep(step) {
  const b = step.body ?? {};
  const parts = [stepHead(step)];
  switch (step.kind) {
    case 'input':
      parts.push(h('h4', { text: 'Message' }), contentBlock(b.message, 'Input message'));
      if (b.history?.length) parts.push(h('h4', { text: `History (${b.history.length} messages)` }), ...messages(b.history));
      break;
    case 'model-request':
      parts.push(
        h(
          'dl',
          { class: 'facts' },
          field('Provider', b.provider ?? '—'),
          field('Model', b.model ?? '—'),
          field('Messages in the request', num(b.messageCount)),
          field('Tools offered', (b.tools ?? []).join(', ') || '—'),
        ),
        h('h4', { text: b.step === 0 ? 'Messages' : 'Messages added since the previous request' }),
        ...messages(b.messages ?? []),
      );
      break;
    case 'model-response':
      parts.push(
        h(
          'dl',
          { class: 'facts' },
          field('Finish', b.finishReason ?? '—'),
          field('Model', b.responseModel ?? '—'),
          field('Tokens', b.usage ? `${num(b.usage.inputTokens ?? 0)} in / ${num(b.usage.outputTokens ?? 0)} out` : '—'),
          field('Cost', typeof step.cost === 'number' ? cost(step.cost) : 'not priced (fw.agent.prices)'),
        ),
      );
      if (b.error) parts.push(h('h4', { text: 'Error' }), contentBlock(b.error, 'Model error'));
      parts.push(h('h4', { text: 'Text' }), b.text ? contentBlock(b.text, 'Model output') : h('p', { class: 'muted', text: '(no text)' }));
      for (const call of b.toolCalls ?? []) {
        parts.push(
          h(
            'h4',
            {},
            'Tool call requested: ',
            h('code', {}, visible(call.toolName)),
            h('span', { class: 'muted', text: ` (${call.toolCallId})` }),
          ),
          contentBlock(call.input, 'Tool arguments the model sent'),
        );
      }
      break;
    case 'tool-call':
      parts.push(
        h(
          'h4',
          {},
          'Tool ',
          h('code', {}, visible(b.toolName)),
          ' ',
          b.ok ? h('span', { class: 'badge ok', text: 'ok' }) : h('span', { class: 'badge bad', text: 'failed' }),
        ),
        h('h4', { text: 'Arguments' }),
        contentBlock(b.input, 'Tool arguments'),
        h('h4', { text: 'Result (what the model read)' }),
        contentBlock(b.output, 'Tool result'),
      );
      break;
    case 'handoff':
      parts.push(
        h('dl', { class: 'facts' }, field('From', visible(b.from)), field('To', visible(b.to)), field('Reason', visible(b.reason ?? '—'))),
      );
      break;
    case 'end':
      parts.push(h('dl', { class: 'facts' }, field('State', b.state ?? '—')));
      if (b.error) parts.push(h('h4', { text: 'Error' }), contentBlock(b.error, 'Run error'));
      if (b.text !== undefined) parts.push(h('h4', { text: 'Answer' }), contentBlock(b.text, 'Run answer'));
      break;
    default:
      parts.push(contentBlock(b, 'Step body'));
  }
  return parts;
}

function messages(list) {
  return list.map((m) =>
    h(
      'div',
      { class: 'message' },
      h('span', { class: 'badge', text: m.role ?? '?' }),
      m.toolName ? h('code', {}, ' ', visible(m.toolName)) : null,
      m.toolCalls?.length ? h('span', { class: 'muted', text: ` asks for ${m.toolCalls.map((c) => c.toolName).join(', ')}` }) : null,
      m.content || !m.toolCalls?.length ? contentBlock(m.content ?? '', `${m.role ?? ''} message`) : null,
      m.toolCalls?.length ? contentBlock(m.toolCalls, 'Tool calls the assistant asked for') : null,
    ),
  );
}
