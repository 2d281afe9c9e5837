// Keyboard focus across a repaint: a view that rebuilds its controls keeps the focused one.

/**
 * Keep keyboard focus on "the same" control across a rebuild (matched by data-fk).
 * @param {HTMLElement} container
 * @param {() => void} rebuild
 */
export function keepFocus(container, rebuild) {
  const active = document.activeElement;
  const key =
    active && container.contains(active) ? /** @type {HTMLElement} */ (active).dataset.fk : null;
  rebuild();
  if (key) {
    const again = /** @type {HTMLButtonElement | null} */ (
      container.querySelector(`[data-fk="${CSS.escape(key)}"]`)
    );
    if (again && !again.disabled) again.focus();
  }
}
