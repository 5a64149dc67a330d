// The zh-CN strings of the mobile app (mobile/index.html and mobile/js/*.js); see ../../i18n.js.
export default {
};
