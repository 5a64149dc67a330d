package schema

// FedActivities is the HASH fed:activities:<uid> of the ids of activities
// that local user uid sent or received and that a later activity names
// again (store.SentActivities): field "follow:<uid>", "like:<mid>",
// "block:<uid>" → the id of its Follow, Like or Block sent, which its Undo
// embeds; "request:<uid>" → the id of a remote account's Follow request,
// which the approval's Accept (or Reject) embeds. A field goes when its
// later activity is sent.
func (k Keys) FedActivities(uid int64) string { return k.prefix + "fed:activities:" + k.tag(uid) }
