// cordova.js stands in for Apache Cordova's own script, which a Cordova
// build (make app) puts here in its place: the page loads it as Cordova
// apps must, and served by the server at /m/ it defines nothing, so the app
// runs alike with Cordova and without (it uses no Cordova plugin).
