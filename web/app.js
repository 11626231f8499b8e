// The page shell: renders the tour (chapters.js) and the reading bar, reads
// the link (which chapter, its state, the implementation), starts the linked chapter, keeps
// the URL in step with the chapter in view and its state (written once the
// learner pauses, shell/url-writer.js; the chapter in view by the rule in
// shell/chapter-in-view.js, none above the first chapter), records the learner's progress
// (chapters gone through, predictions), places the concept check before the
// first chapter and after the last (shell/concept-check.js), and shows a helpful error when the
// wasm module or a stylesheet of the page cannot load. Only the shell touches the URL.
import './widgets.js';
import { CHAPTERS } from './chapters.js';
import { conceptCheck } from './shell/concept-check.js';
import { renderChapters, renderToc } from './shell/chapters-view.js';
import { setUpImplementationMenu } from './shell/implementation-menu.js';
import { showLinkProblems, showLoadError } from './shell/notes.js';
import { watchPageStyles } from './shell/page-styles.js';
import { trackProgress } from './shell/progress.js';
import { readChapter, STUDIO_PARAM, studioProblems, unknownParams, writeUrl } from './shell/url.js';
import { studioPanel } from './widget/studio.js';
import { focusChapter, focusChapterOnFollow } from './shell/chapter-focus.js';
import { atPageEnd, chapterInView, followChapterInView } from './shell/chapter-in-view.js';
import { keepInView } from './shell/keep-in-view.js';
import { readingBar } from './shell/reading-bar.js';
import { urlWriter } from './shell/url-writer.js';

async function main() {
  watchPageStyles();
  const nav = document.getElementById('toc');
  const main = document.getElementById('chapters');
  const note = document.getElementById('url-note');
  const menu = document.getElementById('implementation');
  const status = document.getElementById('implementation-status');
  const errorPanel = document.getElementById('load-error');

  renderToc(nav, CHAPTERS);
  // A chapter chosen in the contents takes the focus, as one chosen in the reading bar.
  focusChapterOnFollow(nav);
  const views = renderChapters(main, CHAPTERS);
  // The concept check: before the first chapter and after the last, linked from the contents too.
  const check = conceptCheck({ chapters: CHAPTERS });
  main.prepend(check.pre);
  main.append(check.post);
  nav.querySelector('#toc-title').after(check.tocLink('pre'));
  nav.append(check.tocLink('post'));
  const bar = readingBar(document.getElementById('reading-bar'), CHAPTERS, { marked: [nav] });
  const chapterOf = (el) => {
    const section = el.closest?.('[data-chapter]');
    return section ? (views.get(section.dataset.chapter)?.chapter ?? null) : null;
  };
  const { progress, visit } = trackProgress({ root: document, nav, chapters: CHAPTERS, chapterOf });
  // Read-only (frozen); the SCORM adapter reads it and resumes through restore().
  Object.defineProperty(window, 'agProgress', { value: progress, enumerable: true });

  // The link: chapter and its state.
  const params = new URLSearchParams(window.location.search);
  const { chapterId, problems } = readChapter(params, CHAPTERS);
  let current = null; // the chapter whose state the URL holds
  if (chapterId) {
    const view = views.get(chapterId);
    for (const w of view.widgets) w.applyParams(params);
    current = view;
    keepInView(view.section);
    focusChapter(view.section.id);
    for (const w of view.widgets) w.start();
    // The instructor's studio: under the chapter, a panel that makes its embed (EMBEDDING.md, "Studio").
    if (params.get(STUDIO_PARAM) === '1') view.section.after(studioPanel(view.widget, view.chapter, view.section));
  }
  if (!chapterId) {
    // A plain anchor (#ch-<id>): go there once the sections exist.
    const view = [...views.values()].find((v) => `#${v.section.id}` === window.location.hash);
    if (view) {
      keepInView(view.section);
      focusChapter(view.section.id);
    }
  }
  problems.push(...unknownParams(params, current?.widgets ?? null, chapterId), ...studioProblems(params, chapterId));
  showLinkProblems(note, problems);

  let impl = { defaultId: null, current: () => null };
  const write = () =>
    writeUrl({
      chapter: current?.chapter ?? null,
      widgets: current?.widgets ?? [],
      implId: impl.current(),
      defaultImplId: impl.defaultId,
    });
  // Changes (a drag, the chapter in view) are written once the learner pauses; a menu choice at once.
  const url = urlWriter(write);

  // The chapter in view (shell/chapter-in-view.js): the last chapter whose top
  // is above a line 30% down the window, or above the window's bottom once
  // the page is scrolled to its very end; none above the first chapter. The
  // reading bar shows it, the progress counts it as gone through, and the URL
  // names it (no chapter at all at the top of the page, so that a copied link
  // or a reload opens the top again).
  const tour = CHAPTERS.map((c) => views.get(c.id));
  const sections = tour.map((v) => v.section);
  let inView = -1;
  // At the very end of the page, every chapter whose top is on screen counts as gone through.
  const seenAtEnd = () =>
    atPageEnd()
      ? tour.filter((v) => {
          const r = v.section.getBoundingClientRect();
          return r.top >= 0 && r.top < window.innerHeight;
        })
      : [];
  followChapterInView(sections, (i) => {
    const view = tour[i] ?? null;
    bar.show(i);
    for (const v of seenAtEnd()) if (v !== view) visit(v.chapter.id);
    if (view) visit(view.chapter.id); // last: the chapter in view is the current one
    if (i === inView) return;
    inView = i;
    current = view; // a change of the chapter in view makes it the one the link is about
    url.schedule();
  });
  // After Back, Forward or a jump to an anchor (url-writer.js drops a write
  // still waiting for the entry left), the entry arrived at gets the state of
  // the chapter then in view, once the browser has scrolled there (with none
  // in view, at the top of the page, it names no chapter).
  const arrived = () =>
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        current = tour[chapterInView(sections)] ?? null;
        url.schedule();
      }),
    );
  window.addEventListener('popstate', arrived);
  window.addEventListener('hashchange', arrived);
  document.addEventListener('ag-statechange', (event) => {
    const chapter = chapterOf(event.target);
    if (!chapter) return;
    // A learner's change makes that chapter the one the link is about.
    if (event.detail.source === 'user') current = views.get(chapter.id);
    if (current && current.chapter.id === chapter.id) {
      if (!note.hidden) note.hidden = true;
      url.schedule();
    }
  });

  try {
    impl = await setUpImplementationMenu(menu, status, {
      wanted: params.get('impl'),
      onProblem: (p) => {
        // An impl= value that is not on the menu: one more note for the link.
        problems.push(p);
        showLinkProblems(note, problems);
      },
      onChange: url.now,
    });
  } catch (err) {
    showLoadError(errorPanel, menu, err);
    return;
  }
  if (current) url.now();
  else document.body.dataset.url = 'current';
  document.body.dataset.state = 'ready';
}

main();
