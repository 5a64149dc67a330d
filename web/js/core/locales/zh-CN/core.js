// js/core 的简体中文文本（见 ../../i18n.js）。键名与 en/core.js 一一对应。
export default {
  'error.unknown': '出了点问题，请再试一次。',
  'settings.language': '语言',
};
