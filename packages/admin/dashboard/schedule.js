// Refresh scheduling: coalesce many triggers (events arrive in bursts) into at most one run per
// interval, never two runs at once, and a trailing run so the last trigger is never lost.

export function throttled(fn, intervalMs, onError = (err) => console.warn('[fw admin] refresh failed:', err)) {
  let last = 0;
  let timer;
  let running = false;
  let again = false;

  async function run() {
    timer = undefined;
    if (running) {
      again = true;
      return;
    }
    running = true;
    last = Date.now();
    try {
      await fn();
    } catch (err) {
      onError(err);
    } finally {
      running = false;
      if (again) {
        again = false;
        trigger();
      }
    }
  }

  function trigger() {
    if (timer) return;
    const wait = Math.max(0, last + intervalMs - Date.now());
    timer = setTimeout(run, wait);
  }

  return {
    trigger,
    /** Runs now (still never concurrently). */
    now() {
      clearTimeout(timer);
      timer = undefined;
      return run();
    },
    cancel() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
