export { Notifier, notifierFor } from './notifier.js';
export { machineFault, noticeOfFailure } from './failure-notice.js';
export {
  FIRST_ERRORS,
  PAYLOAD_VERSION,
  type NoticeError,
  type RunNotice,
  type StaleNotice,
} from './notice.js';
