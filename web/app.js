// The page shell: reads the state from the URL, loads the WebAssembly module,
// fills the implementation menu, hands the widget an engine, and writes the
// URL back when the learner changes something. Only the shell touches the URL.
import './ag-worked-example.js';
import { h } from './dom.js';
import { openImplementations } from './implementations.js';
import { readState, stateEntries } from './state.js';

const OWN_PARAMS = ['q', 'k', 'scale', 'impl'];

function writeUrl(state, implId, defaultId) {
  const others = new URLSearchParams(window.location.search);
  for (const name of OWN_PARAMS) others.delete(name);
  const ours = stateEntries(state).map(([name, value]) => `${name}=${value}`);
  if (implId !== defaultId) ours.push(`impl=${encodeURIComponent(implId)}`);
  const query = [...ours, others.toString()].filter(Boolean).join('&');
  window.history.replaceState(null, '', `?${query}${window.location.hash}`);
}

/** Shows which parts of the link were not used. Values are shown as text, shortened. */
function showUrlProblems(note, problems) {
  if (!problems.length) return;
  const shorten = (text) => (text.length > 60 ? `${text.slice(0, 60)}\u2026` : text);
  note.replaceChildren(
    h('strong', {}, 'Part of this link could not be used.'),
    ' These values were ignored and the defaults used instead (for the inputs, the article\u2019s example):',
    h(
      'ul',
      {},
      problems.map((p) => h('li', {}, h('code', {}, `${p.name}=${shorten(p.value)}`), ` \u2014 expected ${p.expected}.`)),
    ),
  );
  note.hidden = false;
}

function showLoadError(panel, widget, menu, err) {
  menu.replaceChildren(h('option', { value: '' }, 'Unavailable'));
  menu.disabled = true;
  panel.querySelector('[data-role=error-detail]').textContent = err?.message ? String(err.message) : String(err);
  panel.hidden = false;
  widget.classList.add('is-unavailable');
  widget.inert = true;
  widget.showUnavailable('No numbers: the WebAssembly module did not load (see above).');
  document.body.dataset.state = 'error';
}

async function main() {
  const widget = document.querySelector('ag-worked-example');
  const urlNote = document.getElementById('url-note');
  const menu = document.getElementById('implementation');
  const status = document.getElementById('implementation-status');
  const errorPanel = document.getElementById('load-error');

  const params = new URLSearchParams(window.location.search);
  const { state, problems } = readState(params); // appended to below: impl is checked once loaded
  const wantedImpl = params.get('impl');
  widget.state = state;
  showUrlProblems(urlNote, problems);

  let implementations;
  try {
    implementations = await openImplementations();
  } catch (err) {
    showLoadError(errorPanel, widget, menu, err);
    return;
  }
  const { choices, defaultId } = implementations;
  menu.replaceChildren(...choices.map((c) => h('option', { value: c.id }, c.label)));

  let current = defaultId;
  let wanted = defaultId;
  if (wantedImpl !== null && wantedImpl !== defaultId) {
    if (choices.some((c) => c.id === wantedImpl)) wanted = wantedImpl;
    else {
      problems.push({ name: 'impl', value: wantedImpl, expected: `one of ${choices.map((c) => c.id).join(', ')}` });
      showUrlProblems(urlNote, problems);
    }
  }

  async function use(id) {
    menu.disabled = true;
    status.textContent = 'Loading\u2026';
    try {
      widget.engine = await implementations.get(id);
      current = id;
      status.textContent = '';
    } catch (err) {
      status.textContent = `This implementation could not be loaded (${err.message}); the previous one is still in use.`;
      return false;
    } finally {
      menu.value = current;
      menu.disabled = false;
    }
    return true;
  }

  if (!(await use(wanted)) && wanted !== defaultId) await use(defaultId);
  document.body.dataset.state = 'ready';

  menu.addEventListener('change', async () => {
    await use(menu.value);
    writeUrl(widget.state, current, defaultId);
  });
  widget.addEventListener('ag-statechange', (event) => {
    urlNote.hidden = true;
    writeUrl(event.detail.state, current, defaultId);
  });
}

main();
