// The WAI-ARIA tabs pattern: one tab stop, arrow keys / Home / End move and select, the URL hash
// remembers the selected tab (so a reload or a shared link opens it).

export function createTabs(tablist, onSelect) {
  const tabs = [...tablist.querySelectorAll('[role="tab"]')];
  const panelOf = (tab) => document.getElementById(tab.getAttribute('aria-controls'));
  const nameOf = (tab) => tab.id.replace(/^tab-/, '');

  function select(tab, focus = false) {
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute('aria-selected', String(on));
      t.tabIndex = on ? 0 : -1;
      const panel = panelOf(t);
      if (panel) panel.hidden = !on;
    }
    if (focus) tab.focus();
    const name = nameOf(tab);
    if (location.hash !== `#${name}`) history.replaceState(null, '', `#${name}`);
    onSelect(name);
  }

  tablist.addEventListener('click', (e) => {
    const tab = e.target instanceof Element ? e.target.closest('[role="tab"]') : null;
    if (tab) select(tab);
  });
  tablist.addEventListener('keydown', (e) => {
    const i = tabs.indexOf(document.activeElement);
    if (i < 0) return;
    let next;
    if (e.key === 'ArrowRight') next = tabs[(i + 1) % tabs.length];
    else if (e.key === 'ArrowLeft') next = tabs[(i - 1 + tabs.length) % tabs.length];
    else if (e.key === 'Home') next = tabs[0];
    else if (e.key === 'End') next = tabs[tabs.length - 1];
    if (next) {
      e.preventDefault();
      select(next, true);
    }
  });
  addEventListener('hashchange', () => {
    const tab = tabs.find((t) => `#${nameOf(t)}` === location.hash);
    if (tab && tab.getAttribute('aria-selected') !== 'true') select(tab);
  });

  const initial = tabs.find((t) => `#${nameOf(t)}` === location.hash) ?? tabs[0];
  return {
    start: () => select(initial),
    select: (name) => {
      const tab = tabs.find((t) => nameOf(t) === name);
      if (tab) select(tab, true);
    },
    get current() {
      return nameOf(tabs.find((t) => t.getAttribute('aria-selected') === 'true') ?? tabs[0]);
    },
  };
}
