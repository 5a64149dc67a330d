// The en strings of the mobile app (mobile/index.html and mobile/js/*.js); see ../../i18n.js.
export default {
  // offline outbox
  'outbox.waiting': 'Waiting to send',
  'outbox.list': 'Written offline, waiting to send',
  'outbox.saved': 'Not sent yet: kept on this phone, and sent when the connection is back.',
  'outbox.refused': 'Not sent: “{{text}}”. {{reason}}',
  'outbox.discard': 'Discard',
};
