// The zh-CN strings of the mobile app (mobile/index.html and mobile/js/*.js); see ../../i18n.js.
export default {
  // offline outbox
  'outbox.waiting': '等待发送',
  'outbox.list': '离线时写下、等待发送的内容',
  'outbox.saved': '暂未发出：已保存在本机，网络恢复后会自动发送。',
  'outbox.refused': '“{{text}}”未能发送：{{reason}}',
  'outbox.discard': '放弃发送',
};
