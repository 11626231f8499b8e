/**
 * attention-geometry/widgets: every chapter of the teaching page as a custom
 * element (`<ag-...>`), in one prebuilt ES module. Importing it defines the
 * elements; the module finds its stylesheets, KaTeX's fonts, its worker and
 * the .wasm files beside itself, so serve its folder (`dist/widgets/`) as it is.
 *
 * ```html
 * <script type="module" src="/ag/widgets.js"></script>
 * <ag-worked-example></ag-worked-example>
 * ```
 *
 * Attributes: one per state field (`<ag-two-definitions a="1,2" b="-2,1">`) or
 * `state="v=1&a=1,2"`. Events (bubbling, composed): `ag-statechange`,
 * `ag-predict` ({@link AgPredictDetail}), `ag-xapi` ({@link AgXapiDetail}: an
 * xAPI 1.0.3 "answered" statement for every answer of the widget's
 * prediction), `ag-loaderror`. Host attributes: `data-status` (`loading`,
 * `ready`, `error`) and `data-computed-by`.
 *
 * The elements need a browser's DOM: in Node, importing this entry throws an
 * `Error` that says so (its `node` condition loads a module that only throws).
 * @module attention-geometry/widgets
 */
import type { AttentionGeometry } from './index.js';

/** The detail of `ag-predict`: one answer of the widget's prediction. */
export interface AgPredictDetail {
  /** The widget's tag. */
  widget: string;
  /** The chapter the widget belongs to (its id in the tour). */
  chapter: string;
  /** The prediction's id. */
  id: string;
  /** The learner's choice and the right one (as the reveal computed it). */
  choice: string;
  answer: string;
  correct: boolean;
}

/**
 * The detail of `ag-xapi`: the xAPI 1.0.3 statement of one answer (verb
 * `http://adlnet.gov/expapi/verbs/answered`, a `cmi.interaction` activity of
 * type `choice`, `result` { success, response, score }: the score is the
 * chapter's, which its first answer sets). It has no `actor`: the sender adds it.
 */
export interface AgXapiDetail {
  statement: Record<string, unknown>;
  widget: string;
  chapter: string;
  /** The prediction's id. */
  prediction: string;
}

/** The base class of every widget: a custom element with a versioned state. */
export declare class AgWidget extends HTMLElement {
  /** The widget's name, used in exports and notes. */
  static title: string;
  /** Stylesheets of the shadow root, as paths relative to the module. */
  static styles: string[];
  /** A copy of the state; setting it checks every field (a bad one keeps its default, with a note). */
  get state(): Record<string, unknown>;
  set state(value: Record<string, unknown>);
  /** The versioned text form of the state, e.g. `v=1&a=3,4&b=4,3`. */
  get stateText(): string;
  set stateText(text: string);
  /** Merges valid values into the state and recomputes. */
  setState(patch: Record<string, unknown>): void;
  /** Starts the widget now (otherwise it starts when it comes near the viewport); resolves after the first render. */
  start(): Promise<void>;
  /** The promise of the first render, once started. */
  ready?: Promise<void>;
  /** The chapter of the tour this widget belongs to (its id), which its predictions are recorded under. */
  get chapterId(): string;
  /** The API instance that computes this widget's numbers (null before it has loaded). */
  get engine(): AttentionGeometry | null;
  /** A visible note (text only). */
  note(text: string): void;
  clearNote(): void;
  /** Every shown number, as JSON-ready data. */
  exportData(): unknown;
  /** Every shown number, as CSV text. */
  exportTable(): string;
}

/** Defines `tag` (which starts with `ag-`) as `cls` unless it is already defined; returns `cls`. */
export declare function defineWidget<T extends CustomElementConstructor>(tag: `ag-${string}`, cls: T): T;

/** `<ag-attention-atom>` */
export declare class AgAttentionAtom extends AgWidget {}
/** `<ag-competition>` */
export declare class AgCompetition extends AgWidget {}
/** `<ag-content-to-weights>` */
export declare class AgContentToWeights extends AgWidget {}
/** `<ag-convex-hull>` */
export declare class AgConvexHull extends AgWidget {}
/** `<ag-cosine-vs-dot>` */
export declare class AgCosineVsDot extends AgWidget {}
/** `<ag-kv-cache>` */
export declare class AgKvCache extends AgWidget {}
/** `<ag-learn-to-attend>` */
export declare class AgLearnToAttend extends AgWidget {}
/** `<ag-length-lever>` */
export declare class AgLengthLever extends AgWidget {}
/** `<ag-masks>` */
export declare class AgMasks extends AgWidget {}
/** `<ag-matrix-form>` */
export declare class AgMatrixForm extends AgWidget {}
/** `<ag-multi-head>` */
export declare class AgMultiHead extends AgWidget {}
/** `<ag-near-orthogonal>` */
export declare class AgNearOrthogonal extends AgWidget {}
/** `<ag-orthogonality>` */
export declare class AgOrthogonality extends AgWidget {}
/** `<ag-pitfalls>` */
export declare class AgPitfalls extends AgWidget {}
/** `<ag-projection>` */
export declare class AgProjection extends AgWidget {}
/** `<ag-qkt-grid>` */
export declare class AgQktGrid extends AgWidget {}
/** `<ag-rope>` */
export declare class AgRope extends AgWidget {}
/** `<ag-online-softmax>` */
export declare class AgOnlineSoftmax extends AgWidget {}
/** `<ag-scale-fix>` */
export declare class AgScaleFix extends AgWidget {}
/** `<ag-shared-keys>` */
export declare class AgSharedKeys extends AgWidget {}
/** `<ag-sign-and-size>` */
export declare class AgSignAndSize extends AgWidget {}
/** `<ag-simd>` */
export declare class AgSimd extends AgWidget {}
/** `<ag-softcap>` */
export declare class AgSoftcap extends AgWidget {}
/** `<ag-scale-in-training>` */
export declare class AgScaleInTraining extends AgWidget {}
/** `<ag-heads-learn>` */
export declare class AgHeadsLearn extends AgWidget {}
/** `<ag-your-task>` */
export declare class AgYourTask extends AgWidget {}
/** `<ag-softmax>` */
export declare class AgSoftmax extends AgWidget {}
/** `<ag-sqrt-d>` */
export declare class AgSqrtD extends AgWidget {}
/** `<ag-two-definitions>` */
export declare class AgTwoDefinitions extends AgWidget {}
/** `<ag-value-mix>` */
export declare class AgValueMix extends AgWidget {}
/** `<ag-weight-entropy>` */
export declare class AgWeightEntropy extends AgWidget {}
/** `<ag-weights-explain>` */
export declare class AgWeightsExplain extends AgWidget {}
/** `<ag-why-agree>` */
export declare class AgWhyAgree extends AgWidget {}
/** `<ag-worked-example>` */
export declare class AgWorkedExample extends AgWidget {}

declare global {
  interface HTMLElementTagNameMap {
    'ag-attention-atom': AgAttentionAtom;
    'ag-competition': AgCompetition;
    'ag-content-to-weights': AgContentToWeights;
    'ag-convex-hull': AgConvexHull;
    'ag-cosine-vs-dot': AgCosineVsDot;
    'ag-kv-cache': AgKvCache;
    'ag-learn-to-attend': AgLearnToAttend;
    'ag-length-lever': AgLengthLever;
    'ag-masks': AgMasks;
    'ag-matrix-form': AgMatrixForm;
    'ag-multi-head': AgMultiHead;
    'ag-near-orthogonal': AgNearOrthogonal;
    'ag-orthogonality': AgOrthogonality;
    'ag-pitfalls': AgPitfalls;
    'ag-projection': AgProjection;
    'ag-qkt-grid': AgQktGrid;
    'ag-rope': AgRope;
    'ag-online-softmax': AgOnlineSoftmax;
    'ag-scale-fix': AgScaleFix;
    'ag-shared-keys': AgSharedKeys;
    'ag-sign-and-size': AgSignAndSize;
    'ag-simd': AgSimd;
    'ag-softcap': AgSoftcap;
    'ag-scale-in-training': AgScaleInTraining;
    'ag-heads-learn': AgHeadsLearn;
    'ag-your-task': AgYourTask;
    'ag-softmax': AgSoftmax;
    'ag-sqrt-d': AgSqrtD;
    'ag-two-definitions': AgTwoDefinitions;
    'ag-value-mix': AgValueMix;
    'ag-weight-entropy': AgWeightEntropy;
    'ag-weights-explain': AgWeightsExplain;
    'ag-why-agree': AgWhyAgree;
    'ag-worked-example': AgWorkedExample;
  }
}
