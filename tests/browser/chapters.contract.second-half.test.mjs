// The chapter contract (chapters.contract.mjs) for the second half of the tour.
import { contractSuite } from './chapters.contract.mjs';

contractSuite(2);
