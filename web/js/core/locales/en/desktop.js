// The en strings of the desktop page (web/index.html and web/js/*.js); see ../../i18n.js.
export default {
};
