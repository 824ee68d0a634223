export { Notifier, notifierFor, type NotifierOptions } from './notifier.js';
export { machineFault, noticeOfFailure } from './failure-notice.js';
export {
  FIRST_ERRORS,
  PAYLOAD_VERSION,
  type Notice,
  type NoticeError,
  type RunNotice,
  type StaleNotice,
} from './notice.js';
