// The "Implementation" menu: which build and kernel variant computes every
// number on the page. The choices come from the loaded module's kernel
// registry (engine.listImplementations); switching tells every widget.
import { h } from '../widget/dom.js';
import { listImplementations, setImplementation } from '../widget/engine.js';

/**
 * Fills `menu`; resolves to { defaultId, current() } or rejects when no module loads.
 * `wanted` is the id from the link (checked here); `onChange(id)` after a switch.
 */
export async function setUpImplementationMenu(menu, status, { wanted, onProblem, onChange }) {
  const { defaultId, choices } = await listImplementations();
  menu.replaceChildren(...choices.map((c) => h('option', { value: c.id }, c.label)));
  let current = defaultId;
  async function use(id) {
    menu.disabled = true;
    status.textContent = 'Loading\u2026';
    try {
      await setImplementation(id);
      current = id;
      status.textContent = '';
      return true;
    } catch (err) {
      status.textContent = `This implementation could not be loaded (${err.message}); the previous one is still in use.`;
      return false;
    } finally {
      menu.value = current;
      menu.disabled = false;
    }
  }
  if (wanted !== null && wanted !== defaultId) {
    if (choices.some((c) => c.id === wanted)) await use(wanted);
    else onProblem({ name: 'impl', value: wanted, expected: `one of ${choices.map((c) => c.id).join(', ')}` });
  }
  menu.value = current;
  menu.addEventListener('change', async () => {
    await use(menu.value);
    onChange(current);
  });
  return { defaultId, current: () => current };
}
