// The English strings of js/core (see ../../i18n.js). Keys are grouped by
// the module or screen that shows them; error.<code> is the text of a
// contract error code.
export default {
  'error.unknown': 'Something went wrong. Please try again.',
  'settings.language': 'Language',
};
