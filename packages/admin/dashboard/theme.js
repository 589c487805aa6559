// The colour theme: the system's (prefers-color-scheme) unless the operator picks light or dark
// with the header button. The choice is kept in localStorage and applied as `data-theme` on
// <html>, which switches the CSS `color-scheme` (every colour in app.css is a light-dark() pair).

const THEME_KEY = 'fw.admin.theme';
/** @typedef {'auto' | 'light' | 'dark'} Theme */
/** @type {Theme[]} */
const ORDER = ['auto', 'light', 'dark'];
const LABEL = { auto: 'Theme: auto', light: 'Theme: light', dark: 'Theme: dark' };
// Each accessible name starts with the visible text (WCAG 2.5.3, label in name).
const DESCRIPTION = {
  auto: 'Theme: auto (follows the system); activate for light',
  light: 'Theme: light; activate for dark',
  dark: 'Theme: dark; activate to follow the system',
};

/** @returns {Theme} */
function stored() {
  try {
    const v = localStorage.getItem(THEME_KEY);
    return v === 'light' || v === 'dark' ? v : 'auto';
  } catch {
    return 'auto';
  }
}

/** @param {Theme} theme */
function apply(theme) {
  if (theme === 'auto') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}

/**
 * Applies the stored theme now and makes `button` cycle auto → light → dark.
 * @param {HTMLButtonElement} button
 * @param {(theme: Theme) => void} [onChange] told after each change (charts redraw)
 */
export function setupTheme(button, onChange) {
  let theme = stored();
  const show = () => {
    apply(theme);
    button.textContent = LABEL[theme];
    button.setAttribute('aria-label', DESCRIPTION[theme]);
  };
  show();
  button.addEventListener('click', () => {
    theme = ORDER[(ORDER.indexOf(theme) + 1) % ORDER.length] ?? 'auto';
    try {
      if (theme === 'auto') localStorage.removeItem(THEME_KEY);
      else localStorage.setItem(THEME_KEY, theme);
    } catch {
      /* storage disabled: the choice lasts as long as the page */
    }
    show();
    onChange?.(theme);
  });
}
