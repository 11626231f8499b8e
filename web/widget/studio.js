// The instructor's studio (index.html?studio=1&ch=<id>): a panel under the
// chapter's widget that turns the widget as the instructor set it into an
// embed. The widget works as usual, and its own controls set the start state;
// the panel adds
//   - "Hide in the embed": a checkbox per control group of the widget
//     (data-control-group, made by the shared controls, widget/controls.js);
//   - "Ask in the embed": a checkbox per prediction (all asked by default);
//   - the iframe and element snippets (embed-control.js) with the state and
//     these options (hide=, ask=, widget/studio-options.js), each with Copy,
//     and the commands that build an H5P package and a one-chapter SCORM
//     package with the same.
// The panel changes nothing in the widget itself: what it hides and does not
// ask applies to the embed only. EMBEDDING.md, "Studio", is its guide.
import { h } from './dom.js';
import { FRAME_MARGIN, iframeSnippet, elementSnippet, snippetBox, storedSiteAddress } from './embed-control.js';
import { assetUrl } from './assets.js';
import { optionTexts } from './studio-options.js';

/** The command `npm run <script>` that packages `chapter` with the state text and the options' texts. */
const packageCommand = (script, { chapter, stateText, options }) => {
  const parts = [`npm run ${script} --`, `--chapter ${chapter.id}`, `--state '${stateText}'`];
  for (const name of ['hide', 'ask']) if (options[name] !== undefined) parts.push(`--${name} ${options[name]}`);
  return parts.join(' ');
};

/** The command that builds the H5P package of `chapter` (scripts/h5p.mjs). */
export const h5pCommand = (o) => packageCommand('h5p', o);

/** The command that builds the one-chapter SCORM 1.2 package of `chapter` (scripts/scorm.mjs). */
export const scormCommand = (o) => packageCommand('scorm', o);

/** A fieldset of checkboxes, one per item ({ value, text }), checked as `checked(value)` says. */
function checkList(uid, legend, role, items, checked, onChange) {
  const boxes = items.map(({ value, text }, i) => {
    const input = h('input', { type: 'checkbox', id: `${uid}-${role}-${i}`, value, checked: checked(value) });
    input.addEventListener('change', onChange);
    return h('label', { class: 'studio-item' }, input, ' ', h('code', {}, value), ` \u2014 ${text}`);
  });
  const empty = h('p', { class: 'studio-empty' }, 'None in this widget.');
  return h(
    'fieldset',
    { class: 'studio-list', dataset: { role } },
    h('legend', {}, legend),
    items.length ? boxes : empty,
  );
}

const checkedValues = (fieldset) => [...fieldset.querySelectorAll('input:checked')].map((i) => i.value);

/**
 * The studio panel of `widget` (an AgWidget, started) in `chapter` (a record of web/chapters.js), whose
 * `section` on the page gives the frame's height (the chapter's, as the Embed control measures it).
 * @returns {HTMLElement} a <section class="studio"> to place after the chapter's section
 */
export function studioPanel(widget, chapter, section = widget) {
  const uid = `studio-${chapter.id}`;
  const status = h('p', { class: 'studio-status', role: 'status' });
  /** The snippets and commands: what each is for (its label and help), as snippetBox fields. */
  const box = (kind, label, help, rows) => {
    const made = snippetBox({ id: `${uid}-${kind}`, label, help, status, rows });
    made.area.dataset.snippet = kind;
    return made;
  };
  const iframe = box(
    'iframe',
    'Iframe snippet',
    'For any page, also where scripts are removed (Canvas): the chapter in a frame, as set here.',
  );
  const element = box('element', 'Element snippet', 'For pages that may load scripts: the widget alone, as set here.');
  const h5p = box(
    'h5p',
    'H5P command',
    'Run in a checkout of this project: it writes build/attention-geometry-<chapter>.h5p with this state, these hidden controls and these predictions.',
    2,
  );
  const scorm = box(
    'scorm',
    'SCORM command',
    'Run in a checkout of this project: it writes build/attention-geometry-<chapter>-scorm12.zip, this chapter alone as a SCORM 1.2 package for an LMS, complete once every prediction asked is answered (with none asked, once the widget is used).',
    2,
  );
  const lists = h('div', { class: 'studio-lists' });
  let hide = [];
  let asked = null; // null until the lists exist: every prediction
  let shownGroups = '';

  const update = () => {
    const predictions = widget.predictions.map((p) => p.id);
    const options = optionTexts({ hide, asked, predictions });
    const stateText = widget.stateText;
    const site = storedSiteAddress() ?? assetUrl('');
    const height = section.getBoundingClientRect().height + FRAME_MARGIN;
    iframe.area.value = iframeSnippet({ tag: widget.localName, stateText, chapter, height, site, options });
    element.area.value = elementSnippet({ tag: widget.localName, stateText, site, options });
    h5p.area.value = h5pCommand({ chapter, stateText, options });
    scorm.area.value = scormCommand({ chapter, stateText, options });
  };
  const read = () => {
    hide = checkedValues(lists.querySelector('[data-role="studio-hide"]'));
    asked = checkedValues(lists.querySelector('[data-role="studio-ask"]'));
    update();
  };
  // The lists, made again only when the widget's control groups change (a state may add or remove rows).
  const fill = () => {
    const groups = widget.controlGroups;
    const names = groups.map((g) => g.name).join();
    if (names === shownGroups && lists.firstChild) return;
    shownGroups = names;
    const predictions = widget.predictions;
    lists.replaceChildren(
      checkList(
        uid,
        'Hide in the embed',
        'studio-hide',
        groups.map((g) => ({ value: g.name, text: g.label })),
        (name) => hide.includes(name),
        read,
      ),
      checkList(
        uid,
        'Ask in the embed',
        'studio-ask',
        predictions.map((p) => ({ value: p.id, text: p.question })),
        (id) => asked === null || asked.includes(id),
        read,
      ),
    );
    read();
  };

  const panel = h(
    'section',
    { class: 'studio', 'aria-label': 'Studio', dataset: { role: 'studio' } },
    h('h3', {}, 'Studio: this chapter as an embed'),
    h(
      'p',
      { class: 'studio-help' },
      'Set the start state with the widget\u2019s own controls above. Choose what the embed leaves out; the snippets follow. Hidden controls still apply the state they were set to.',
    ),
    lists,
    iframe.node,
    element.node,
    h5p.node,
    scorm.node,
    status,
  );
  // Once a frame at most, after the widget's render: a drag changes the state many times a second, and the
  // frame's height is read from the layout.
  let pending = false;
  widget.addEventListener('ag-statechange', () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      fill();
      update();
    });
  });
  const ready = Promise.resolve(widget.ready).then(() => {
    fill();
    update();
    panel.dataset.state = 'ready';
  });
  panel.ready = ready;
  return panel;
}
