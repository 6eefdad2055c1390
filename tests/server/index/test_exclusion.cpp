// Content exclusion: the built-in list of secret-bearing files, the user's and the
// workspace's .waferignore, the `exclude` setting, which rule decided, and the workspace
// index leaving excluded files out.
#include <catch2/catch.hpp>

#include <string>
#include <tuple>
#include <vector>

#include "server/index/exclusion.h"
#include "server/index/workspace_index.h"
#include "tests/support/testing.h"

using namespace wafer;
using wafer::test::TempDir;
using wafer::test::write_file;

namespace {

bool out(const ExclusionRules& rules, std::string_view path) { return rules.excluded(path).has_value(); }

}  // namespace

TEST_CASE("exclusion: the built-in list names secret-bearing files", "[exclusion]") {
  const ExclusionRules rules;
  for (const char* secret :
       {".env", "app/.env", ".env.local", ".env.production", ".envrc", "tls/server.pem", "server.key", "store.p12",
        "cert.pfx", "release.jks", "debug.keystore", "id_rsa", "home/u/id_ed25519", "id_ecdsa_work", "id_dsa",
        ".npmrc", "web/.npmrc", ".pypirc", ".netrc", "_netrc", ".git-credentials", ".htpasswd", "vault.kdbx",
        "credentials.json", "client_secret_123.json", "service-account-prod.json", ".aws/credentials",
        "home/u/.aws/config", ".ssh/config", ".ssh/id_rsa.pub", ".gnupg/pubring.kbx", ".docker/config.json",
        "home/u/.docker/config.json", "kubeconfig", ".kube/config", "ops/.kube/config", "terraform.tfstate",
        "terraform.tfstate.backup", "prod.tfvars", "secrets.yaml", "config/secrets.yml"}) {
    INFO(secret);
    CHECK(out(rules, secret));
  }
  for (const char* kept :
       {".env.example", ".env.sample", ".env.template", "id_rsa.pub", "id_ed25519.pub", "main.py", "env.py",
        "keys.py", "src/credentials.py", "credentials_schema.json", "config.json", "docker/config.json",
        "kube/config", "secrets.py", "README.md", "package.json", ".npmrc.md"}) {
    INFO(kept);
    CHECK_FALSE(out(rules, kept));
  }
}

TEST_CASE("exclusion: says which rule decided, and where it came from", "[exclusion]") {
  const ExclusionRules rules("private/\n", {"*.secret.py"}, "notes/*.py\n");
  // path -> source, pattern as written, the excluded folder it lies in
  const std::vector<std::tuple<std::string, std::string, std::string, std::string>> expected = {
      {".env", "built-in", ".env", ""},
      {"private/plan.py", "user .waferignore", "private/", "private"},
      {"src/db.secret.py", "exclude setting", "*.secret.py", ""},
      {"notes/todo.py", "workspace .waferignore", "notes/*.py", ""},
      {".aws/credentials", "built-in", ".aws/", ".aws"},
  };
  for (const auto& [path, source, pattern, folder] : expected) {
    INFO(path);
    const std::optional<Exclusion> e = rules.excluded(path);
    REQUIRE(e);
    CHECK(to_string(e->source) == source);
    CHECK(e->pattern == pattern);
    CHECK(e->folder == folder);
  }
  CHECK_FALSE(rules.excluded("notes/todo.txt"));
  CHECK_FALSE(rules.excluded("src/db.py"));
}

TEST_CASE("exclusion: the user's rules re-include, the workspace's cannot", "[exclusion]") {
  // The user's file and the setting come after the built-in list: their `!` wins.
  const ExclusionRules user("!credentials.json\n", {"!*.tfvars"}, "");
  CHECK_FALSE(out(user, "credentials.json"));
  CHECK_FALSE(out(user, "dev.tfvars"));
  CHECK(out(user, ".env"));
  // A repository's .waferignore only adds exclusions.
  const ExclusionRules workspace("", {}, "!.env\n!credentials.json\ngen/\n!gen/keep.py\n");
  CHECK(out(workspace, ".env"));
  CHECK(out(workspace, "credentials.json"));
  CHECK(out(workspace, "gen/keep.py"));  // inside an excluded folder
  // Nothing comes back from inside an excluded folder, even for the user.
  const ExclusionRules inside("!.ssh/config\n", {}, "");
  CHECK(out(inside, ".ssh/config"));
}

TEST_CASE("exclusion: load reads the user's file and the workspace's", "[exclusion]") {
  TempDir dir;
  write_file(dir / "ws" / ".waferignore", "# drafts\ndrafts/\n");
  write_file(dir / "user.waferignore", "*.private.py\n");
  const ExclusionRules rules =
      ExclusionRules::load((dir / "ws").string(), (dir / "user.waferignore").string(), {"legacy.py"});
  CHECK(out(rules, "drafts/a.py"));
  CHECK(out(rules, "x.private.py"));
  CHECK(out(rules, "legacy.py"));
  CHECK(out(rules, ".env"));
  CHECK_FALSE(out(rules, "main.py"));
  // Missing files: the built-in list and the setting alone.
  const ExclusionRules bare = ExclusionRules::load((dir / "none").string(), (dir / "none.txt").string(), {});
  CHECK(out(bare, "id_rsa"));
  CHECK_FALSE(out(bare, "drafts/a.py"));
}

TEST_CASE("workspace index: excluded files are never read", "[exclusion][workspace_index]") {
  TempDir dir;
  write_file(dir / "main.py", "def alpha():\n    return 1\n");
  write_file(dir / "service-account.json", "{\"private_key\": \"MARKER\"}\n");
  write_file(dir / "credentials.json", "{\"token\": \"MARKER\"}\n");
  write_file(dir / "drafts" / "plan.py", "def alpha_plan():\n    return 'MARKER'\n");
  write_file(dir / "vendor_keys.py", "def alpha_key():\n    return 'MARKER'\n");
  write_file(dir / ".waferignore", "drafts/\n");
  IndexLimits limits;
  limits.exclusion = std::make_shared<const ExclusionRules>(
      ExclusionRules::load(dir.path().string(), "", {"vendor_keys.py"}));
  auto index = WorkspaceIndex::build(dir.path().string(), limits);
  std::vector<std::string> files;
  for (const auto& f : index->files()) files.push_back(f->path);
  CHECK(files == std::vector<std::string>{"main.py"});
  CHECK(index->counts().excluded == 4);  // the two JSON files, drafts/, vendor_keys.py
  // A file that changes is read again only if it is not excluded.
  CHECK(WorkspaceIndex::index_file(dir.path().string(), "vendor_keys.py", limits) == nullptr);
  CHECK(WorkspaceIndex::index_file(dir.path().string(), "credentials.json", limits) == nullptr);
  CHECK(WorkspaceIndex::index_file(dir.path().string(), "main.py", limits) != nullptr);
  // Without the rules of the workspace and the setting, the built-in list still holds.
  auto builtin = WorkspaceIndex::build(dir.path().string(), IndexLimits{});
  CHECK(builtin->counts().excluded == 2);
  CHECK(builtin->files().size() == 3);
}

TEST_CASE("exclusion: find_excluded lists what the rules leave out of a folder", "[exclusion]") {
  TempDir dir;
  write_file(dir / "main.py", "x = 1\n");
  write_file(dir / ".env", "TOKEN=1\n");
  write_file(dir / ".env.example", "TOKEN=\n");
  write_file(dir / "config" / "secrets.yaml", "a: 1\n");
  write_file(dir / ".ssh" / "id_rsa", "key\n");
  write_file(dir / ".ssh" / "known_hosts", "host\n");
  write_file(dir / ".git" / "id_rsa", "not looked at\n");
  write_file(dir / "drafts" / "plan.py", "x = 2\n");
  write_file(dir / ".waferignore", "drafts/\n");
  const ExclusionRules rules = ExclusionRules::load(dir.path().string(), "", {"main.py"});
  std::vector<std::string> listed;
  for (const ExcludedPath& p : find_excluded(dir.path().string(), rules))
    listed.push_back(p.path + (p.is_dir ? "/" : "") + " " + std::string(to_string(p.why.source)));
  CHECK(listed == std::vector<std::string>{".env built-in", ".ssh/ built-in", "config/secrets.yaml built-in",
                                           "drafts/ workspace .waferignore", "main.py exclude setting"});
  bool truncated = false;
  CHECK(find_excluded(dir.path().string(), rules, 2, &truncated).size() <= 2);
  CHECK(truncated);
}
