package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	esbuild "github.com/evanw/esbuild/pkg/api"
)

// Bundling. A front end is ~50 ES modules; loaded one by one they cost a
// cold visit about eight waves of round trips (six connections, HTTP/1.1),
// whatever the preloads. So each page's module script is bundled when the
// site is prepared, in the server process, with esbuild's Go API, from the
// embedded files: no build step for developers beyond the server's own go
// build, as before (no Node, no generated files in the repository). The output is ES
// modules with code splitting: what the code imports dynamically (the
// language catalogs, the operators' page, the emoji list) stays in chunks of
// its own, loaded when asked for, as before. Minified, with a linked source
// map, so the browser's developer tools show the modules as written.
//
// The bundle's files live beside the modules, in a bundle/ folder next to
// the page's entry (js/bundle/), named by esbuild with a hash of their
// content and of the chunks they import, so their URLs are immutable
// without a ?v=. The page's <script type="module"> and the mobile service
// worker's MODULES list (what it keeps for offline use) name the bundle's
// files instead of the modules. The modules are still served, as written:
// MICROBLOG_BUNDLE=off serves the pages with them (for debugging), and the
// Cordova app, which loads from the phone, packs them.
const bundleDir = "bundle"

// contentHashed matches the names of the bundle's files: name-HASH.js(.map).
var contentHashed = regexp.MustCompile(`/` + bundleDir + `/[^/]+-[A-Z0-9]{8}\.js(?:\.map)?$`)

// swModules is the mobile service worker's list of the app's code, which
// the server replaces with the bundle's files.
var swModules = regexp.MustCompile(`(?s)(const MODULES = \[)[^\]]*(\];)`)

// catalogDir finds the language of a catalog module: js/core/locales/<language>/….
var catalogDir = regexp.MustCompile(`/locales/([^/]+)/[^/]+\.js$`)

// bundleSite replaces, in raw (a front end's files by name), each page's
// module script with its bundle, adds the bundle's files, and lists them in
// sw.js's MODULES when there is one. It returns the names of the files it
// added, and by page and language the chunks of that language's catalogs.
func bundleSite(fsys fs.FS, raw map[string][]byte, resolve func(from, ref string) string) (added []string, catalogs map[string]map[string][]string, err error) {
	catalogs = map[string]map[string][]string{}
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		if path.Ext(name) != ".html" {
			continue
		}
		page := raw[name]
		m := moduleEntry.FindSubmatchIndex(page)
		if m == nil {
			continue
		}
		src := string(page[m[2]:m[3]])
		entry := resolve(name, src)
		out, err := bundleModules(fsys, entry)
		if err != nil {
			return nil, nil, fmt.Errorf("bundle %s: %w", entry, err)
		}
		dir := path.Join(path.Dir(entry), bundleDir)
		var entryOut string
		var code []string
		for _, f := range out {
			file := path.Join(dir, f.name)
			raw[file] = f.body
			added = append(added, file)
			if f.entry {
				entryOut = f.name
			}
			if m := catalogDir.FindStringSubmatch("/" + f.from); m != nil && path.Ext(file) == ".js" {
				if catalogs[name] == nil {
					catalogs[name] = map[string][]string{}
				}
				catalogs[name][m[1]] = append(catalogs[name][m[1]], file)
			}
			if path.Ext(file) == ".js" {
				code = append(code, file)
			}
		}
		newSrc := path.Join(path.Dir(src), bundleDir, entryOut)
		raw[name] = slices.Concat(page[:m[2]], []byte(newSrc), page[m[3]:])
		if sw, ok := raw[path.Join(path.Dir(name), "sw.js")]; ok {
			slices.Sort(code)
			var list strings.Builder
			for _, f := range code {
				fmt.Fprintf(&list, "\n  '%s',", strings.TrimPrefix(f, path.Dir(name)+"/"))
			}
			list.WriteString("\n")
			if !swModules.Match(sw) {
				return nil, nil, errors.New("sw.js has no const MODULES = [...]; list to put the bundle in")
			}
			raw[path.Join(path.Dir(name), "sw.js")] = swModules.ReplaceAll(sw, []byte("${1}"+strings.ReplaceAll(list.String(), "$", "$$")+"${2}"))
		}
	}
	return added, catalogs, nil
}

// bundleFile is one file esbuild wrote.
type bundleFile struct {
	name  string // relative to the bundle's folder
	body  []byte
	entry bool   // the entry's own chunk, the one the page loads
	from  string // the module whose chunk this is, if it is loaded on demand (a dynamic import)
}

// bundleModules bundles entry and the modules it imports, read from fsys.
func bundleModules(fsys fs.FS, entry string) ([]bundleFile, error) {
	const ns = "embed"
	embedded := esbuild.Plugin{Name: "embed", Setup: func(b esbuild.PluginBuild) {
		b.OnResolve(esbuild.OnResolveOptions{Filter: `.*`}, func(args esbuild.OnResolveArgs) (esbuild.OnResolveResult, error) {
			if args.Kind == esbuild.ResolveEntryPoint {
				return esbuild.OnResolveResult{Path: args.Path, Namespace: ns}, nil
			}
			if !strings.HasPrefix(args.Path, "./") && !strings.HasPrefix(args.Path, "../") {
				return esbuild.OnResolveResult{}, fmt.Errorf("only relative imports are served, not %q", args.Path)
			}
			return esbuild.OnResolveResult{Path: path.Join(path.Dir(args.Importer), args.Path), Namespace: ns}, nil
		})
		b.OnLoad(esbuild.OnLoadOptions{Filter: `.*`, Namespace: ns}, func(args esbuild.OnLoadArgs) (esbuild.OnLoadResult, error) {
			src, err := fs.ReadFile(fsys, args.Path)
			if err != nil {
				return esbuild.OnLoadResult{}, err
			}
			s := string(src)
			return esbuild.OnLoadResult{Contents: &s, Loader: esbuild.LoaderJS}, nil
		})
	}}
	const outdir = "/" + bundleDir
	res := esbuild.Build(esbuild.BuildOptions{
		EntryPoints:       []string{entry},
		Bundle:            true,
		Splitting:         true,
		Format:            esbuild.FormatESModule,
		Target:            esbuild.ES2022, // top-level await (i18n.js): what the front ends need already
		Write:             false,
		AbsWorkingDir:     "/",
		Outdir:            outdir,
		EntryNames:        "[name]-[hash]",
		ChunkNames:        "[name]-[hash]",
		MinifyWhitespace:  true,
		MinifySyntax:      true,
		MinifyIdentifiers: true,
		Sourcemap:         esbuild.SourceMapLinked,
		Charset:           esbuild.CharsetUTF8, // Chinese catalogs as UTF-8, not \u escapes: smaller
		Plugins:           []esbuild.Plugin{embedded},
		LogLevel:          esbuild.LogLevelSilent,
		Metafile:          true,
	})
	if len(res.Errors) > 0 {
		var errs []error
		for _, m := range esbuild.FormatMessages(res.Errors, esbuild.FormatMessagesOptions{}) {
			errs = append(errs, errors.New(strings.TrimSpace(m)))
		}
		return nil, errors.Join(errs...)
	}
	var meta struct {
		Outputs map[string]struct {
			EntryPoint string `json:"entryPoint"`
		} `json:"outputs"`
	}
	if err := json.Unmarshal([]byte(res.Metafile), &meta); err != nil {
		return nil, fmt.Errorf("esbuild's metafile: %w", err)
	}
	var out []bundleFile
	for _, f := range res.OutputFiles {
		name := strings.TrimPrefix(f.Path, outdir+"/")
		if !contentHashed.MatchString("/" + bundleDir + "/" + name) {
			return nil, fmt.Errorf("esbuild wrote %s, not a name with its hash", name)
		}
		from := strings.TrimPrefix(meta.Outputs[bundleDir+"/"+name].EntryPoint, ns+":")
		out = append(out, bundleFile{name: name, body: f.Contents, entry: from == entry, from: from})
	}
	return out, nil
}
