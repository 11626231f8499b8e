// The chapter contract (chapters.contract.mjs) for the first half of the tour.
import { contractSuite } from './chapters.contract.mjs';

contractSuite(1);
