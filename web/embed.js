// The one-widget page (embed.html), for iframes on other sites: reads the
// address (which widget or chapter, its state), shows it started at once,
// notes what it could not use, links to the full page with the same state,
// and reports its height and each answer's xAPI statement to the page around
// the frame. See EMBEDDING.md. As the launch page of a one-chapter SCORM
// package, it reads its address from the page (LAUNCH_META) and tracks the
// learner's progress for the SCORM adapter (window.agProgress). A stylesheet
// of the page that did not load is named at its top (shell/page-styles.js).
import './widgets.js';
import { CHAPTERS } from './chapters.js';
import { trackChapterProgress } from './shell/chapter-progress.js';
import { embedAddress, readEmbedParams } from './shell/embed-params.js';
import { reportHeight } from './shell/embed-resize.js';
import { reportStatements } from './shell/embed-xapi.js';
import { openFullPageOnClick, renderEmbed, showAddressProblems, updateFullPageLink } from './shell/embed-view.js';
import { watchPageStyles } from './shell/page-styles.js';

function main() {
  watchPageStyles();
  const note = document.getElementById('embed-note');
  const main = document.getElementById('embed');
  const link = document.getElementById('embed-open');

  const address = embedAddress(document, window.location.search);
  const { tag, chapter, stateText, id, hide, ask, problems } = readEmbedParams(address.params, CHAPTERS);
  const widget = renderEmbed(main, { tag, chapter });
  // The studio's options: control groups left out, predictions asked (checked by the widget once built).
  if (hide !== null) widget.setAttribute('hide', hide);
  if (ask !== null) widget.setAttribute('ask', ask);
  // The widget's own codec checks the state and shows what it ignored in the widget's note.
  // In a package (launched), the learner has no link: the notes speak of the package's settings.
  const from = address.launched ? 'package' : 'link';
  if (stateText !== null) widget.readStateText(stateText, from);
  showAddressProblems(note, problems, from);

  // A copy of the widgets without the full page beside them (the npm package's
  // dist/widgets/) says so with <meta name="attention-geometry-full-page" content="off">.
  if (document.querySelector('meta[name="attention-geometry-full-page"][content="off"]'))
    link.closest('.embed-open').hidden = true;

  const home = chapter ?? CHAPTERS.find((c) => c.tag === tag) ?? null;
  const follow = () => updateFullPageLink(link, { chapter: home, stateText: widget.stateText });
  follow();
  widget.addEventListener('ag-statechange', follow);
  openFullPageOnClick(link, note);

  widget.start();
  // Read-only (frozen); the SCORM adapter (scorm.js, loaded after this module) reports it and resumes through restore().
  if (address.launched && chapter)
    Object.defineProperty(window, 'agProgress', {
      value: trackChapterProgress({ root: document, widget, chapter }),
      enumerable: true,
    });
  const fields = { widget: tag, chapter: chapter ? chapter.id : null, id };
  reportHeight(fields);
  reportStatements(widget, fields);
  widget.ready?.then(() => {
    const unused = widget.embedOptionProblems();
    if (unused.length) showAddressProblems(note, [...problems, ...unused], from);
    document.body.dataset.state = widget.dataset.status === 'error' ? 'error' : 'ready';
  });
}

main();
