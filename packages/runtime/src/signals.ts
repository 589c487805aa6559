/**
 * `fw.close.signals`: on the first of these signals fw drains (`close()`, within
 * `fw.close.drain-timeout`), then raises the signal again with its own handlers gone, so the
 * process ends as it would have (or the app's own handlers for it decide). Opt-in: a library
 * should not take over a process's signals unless asked.
 */
export function parseSignals(value: string): NodeJS.Signals[] {
  const names = value
    .split(',')
    .map((s) => s.trim().toUpperCase())
    .filter(Boolean);
  for (const n of names) {
    if (!/^SIG[A-Z0-9]+$/.test(n) || n === 'SIGKILL' || n === 'SIGSTOP')
      throw new Error(`fw.close.signals: '${n}' is not a signal fw can handle`);
  }
  return names as NodeJS.Signals[];
}

/** Installs the handlers; returns a function that removes them. */
export function drainOnSignals(signals: readonly NodeJS.Signals[], close: () => Promise<void>): () => void {
  const handlers = new Map<NodeJS.Signals, () => void>();
  const remove = (): void => {
    for (const [signal, handler] of handlers) process.off(signal, handler);
    handlers.clear();
  };
  for (const signal of signals) {
    const handler = (): void => {
      remove();
      void close().finally(() => process.kill(process.pid, signal));
    };
    handlers.set(signal, handler);
    process.on(signal, handler);
  }
  return remove;
}
