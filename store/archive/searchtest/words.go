package searchtest

import "strings"

// zhWords are Chinese words and characters, most frequent first: Zipf's law
// picks the first ones in most posts and the last (饕餮, 龘) in few.
var zhWords = strings.Fields(`
的 了 是 我 你 今天 天气 好 很 在 有 不 这 他 她 我们 就 也 都 和 说 要 去 看 想 会 可以 没有 一个
什么 时候 知道 现在 因为 所以 但是 如果 还是 已经 朋友 工作 学习 生活 喜欢 觉得 真的 大家 中国
北京 上海 明天 昨天 早上 晚上 下午 吃饭 咖啡 电影 音乐 手机 电脑 程序 数据 数据库 服务器 代码
开发 测试 问题 时间 世界 城市 下雨 阳光 周末 假期 旅行 照片 分享 新闻 微博 热搜 话题 评论 转发
点赞 关注 粉丝 开心 快乐 难过 加油 谢谢 哈哈 哈哈哈 真好 不错 厉害 春天 夏天 秋天 冬天 下雪
温度 空气 健康 运动 跑步 足球 篮球 比赛 学校 老师 学生 考试 大学 公司 老板 同事 会议 项目 产品
用户 市场 经济 技术 人工智能 模型 算法 网络 系统 安全 隐私 更新 版本 发布 功能 设计 体验 界面
速度 性能 缓存 搜索 推荐 实时 消息 通知 历史 文化 艺术 读书 写作 故事 猫 狗 宠物 家人 妈妈
爸爸 孩子 生日 礼物 节日 春节 中秋 月亮 星星 海边 风景 美食 火锅 面条 饺子 奶茶 水果 苹果 西瓜
价格 便宜 排队 地铁 公交 开车 堵车 飞机 火车 高铁 酒店 广州 深圳 杭州 成都 重庆 武汉 西安 南京
天津 长沙 郑州 青岛 厦门 昆明 大连 苏州 宁波 合肥 福州 济南 沈阳 哈尔滨 长春 太原 石家庄 南宁
贵阳 兰州 海口 银川 西宁 拉萨 乌鲁木齐 呼和浩特 台北 香港 澳门 东京 纽约 伦敦 巴黎 柏林 悉尼
熊猫 长城 故宫 西湖 黄山 泰山 长江 黄河 太阳 地球 宇宙 火星 量子 芯片 电池 能源 汽车 电动车
自行车 马拉松 游泳 瑜伽 围棋 象棋 乒乓球 羽毛球 网球 排球 滑雪 登山 露营 钓鱼 摄影 画画 书法
钢琴 吉他 小提琴 唱歌 跳舞 相声 京剧 电视剧 综艺 动漫 游戏 小说 诗歌 散文 哲学 心理学 经济学
物理 化学 生物 数学 英语 语文 地理 政治 法律 医学 护士 医生 医院 感冒 发烧 咳嗽 疫苗 口罩
麒麟 凤凰 龙井 碧螺春 普洱 乌龙 茉莉 牡丹 梅花 兰花 竹子 菊花 荷花 桂花 樱花 银杏 梧桐
饕餮 貔貅 魑魅 魍魉 耄耋 饕 龘 靐 齉 爩
`)

// enWords are English words, most frequent first, with the names of some
// software (which people write in many letter cases) and a German street
// (ß, which folds to ss) near the end.
var enWords = strings.Fields(`
the be to of and a in that have it for not on with he as you do at this but his by from they we say
her she or an will my one all would there their what so up out if about who get which go me when make
can like time no just him know take people into year your good some could them see other than then
now look only come its over think also back after use two how our work first well way even new want
because any these give day most us great weather coffee code today tomorrow yesterday morning night
happy love friends family music movie game football city rain sunny weekend travel photo food lunch
dinner breakfast train flight hotel beach mountain river park dog cat book read write blog post news
update release deploy server database cache search index query latency benchmark test bug fix build
cloud linux docker kubernetes redis golang python rust javascript sqlite mysql mariadb postgres github
api http json websocket stream queue shard cluster replica backup restore migrate schema table column
row key value hash set list sorted score timeline feed follow like share comment trend topic tag mention
emoji unicode chinese english language translate learn teach school student teacher exam university
office meeting project product user market price money bank coffee tea milk bread pizza burger noodles
dumplings hotpot spicy sweet salty bitter sour hot cold warm cool windy cloudy snowy foggy storm
thunder rainbow sunset sunrise moon star planet galaxy universe quantum chip battery energy electric
bicycle marathon swimming yoga chess tennis badminton skiing hiking camping fishing photography
painting calligraphy piano guitar violin singing dancing drama anime novel poetry philosophy psychology
physics chemistry biology mathematics geography politics law medicine nurse doctor hospital fever
vaccine straße strasse serendipity ephemeral quixotic zephyr xylophone jubilant
`)

// emoji are pictures people put in posts, some of two code points.
var emoji = []string{"🔥", "😂", "👍", "❤️", "🎉", "🌞", "🌧️", "☕", "🚀", "😭", "🐱", "🐶", "🍜", "✨", "💯", "🙏", "🤔", "🇨🇳"}

// zhMarks and enMarks end a Chinese or an English sentence.
var (
	zhMarks = []string{"，", "。", "！", "？", "…", "、"}
	enMarks = []string{".", ",", "!", "?", "...", ":"}
)

// Rare are words one post in RareEvery carries, one of them picked at random:
// each is in about 60 posts of a million, for the benchmark's rare queries.
// Their characters are in no other word of the corpus.
var Rare = strings.Fields(`
燚 犇 羴 鱻 骉 猋 淼 焱 垚 赑 彧 翀 昶 煦 珩 琰 璟 玥 昀 沄
彧翀 昶煦 珩琰 璟玥 昀沄 燚犇 羴鱻 骉猋 淼焱 垚赑
quokka zugzwang defenestration petrichor sonder vellichor apricity hiraeth
qu0kk4 zx9 jxq wq8
`)

// RareEvery says how often a post carries a word of Rare: one in RareEvery.
const RareEvery = 400
