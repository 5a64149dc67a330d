// Package media is the images' part of the store's request path on Redis:
// an upload's hash (media:<id>) from SaveMedia until a post or a message
// takes it (media:unattached holds it meanwhile, for the media janitor),
// its description, avatars, and dropping images and their files once
// nothing holds them. The files themselves are package store/media's.
//
// A redisdb.Store embeds Uploads, so their methods are the Store's. What
// they need of the rest of the store they ask of Core; the steps that
// posts and messages take with them (QueueRead, Own, QueueAttach, JSON,
// AvatarURL) are functions, not methods. This package never imports
// redisdb.
package media
