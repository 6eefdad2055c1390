// Document keys (server/document/document_key.h): the spellings of one file's URI that
// editors send give one key under the rules of a system that ignores case, and stay apart
// where case matters; the document store and the workspace find a document by any of them.
#include <catch2/catch.hpp>

#include "server/document/document_key.h"
#include "server/document/workspace.h"

using namespace wafer;

namespace {

const FileNameRules kWindows{true, true};
const FileNameRules kMac{true, false};
const FileNameRules kLinux{false, false};

}  // namespace

TEST_CASE("document_key: VS Code's and other clients' spellings of a Windows file are one key", "[document_key]") {
  const std::string key = document_key("file:///d%3A/Proj/Src/A.py", kWindows);
  CHECK(key == "file:///d:/proj/src/a.py");
  for (const char* uri : {"file:///D:/proj/src/a.py", "file:///d:/PROJ/SRC/A.PY", "file:///D%3A/Proj/Src/A.py",
                          "file:///d%3a/Proj/Src/A.py", "FILE:///D:/Proj/Src/A.py", "file:///D:\\Proj\\Src\\A.py"}) {
    INFO(uri);
    CHECK(document_key(uri, kWindows) == key);
  }
  CHECK(document_key("file:///c%3A/proj/src/a.py", kWindows) != key);  // another drive
  CHECK(document_key("file:///d%3A/proj/src/a%20b.py", kWindows) == document_key("file:///D:/Proj/Src/A B.py", kWindows));
}

TEST_CASE("document_key: UNC shares: the server and the path ignore case", "[document_key]") {
  CHECK(document_key("file://Server/Share/Dir/A.py", kWindows) == "file://server/share/dir/a.py");
  CHECK(document_key("file://SERVER/share/dir/a.py", kWindows) == document_key("file://server/Share/Dir/A.py", kWindows));
  // Where case matters the path keeps it, but a host name never has case.
  CHECK(document_key("file://SERVER/Share/A.py", kLinux) == "file://server/Share/A.py");
}

TEST_CASE("document_key: case matters on Linux, and a backslash is a letter off Windows", "[document_key]") {
  CHECK(document_key("file:///home/u/A.py", kLinux) != document_key("file:///home/u/a.py", kLinux));
  CHECK(document_key("file:///home/u/a%20b.py", kLinux) == document_key("file:///home/u/a b.py", kLinux));
  CHECK(document_key("file:///Users/u/A.py", kMac) == document_key("file:///users/U/a.PY", kMac));
  CHECK(document_key("file:///u/a\\b.py", kMac) != document_key("file:///u/a/b.py", kMac));
  CHECK(document_key("file:///u/a\\b.py", kWindows) == document_key("file:///u/a/b.py", kWindows));
}

TEST_CASE("document_key: other schemes are their own key", "[document_key]") {
  CHECK(document_key("untitled:Untitled-1", kWindows) == "untitled:Untitled-1");
  CHECK(document_key("vscode-notebook-cell:/A.py#X", kWindows) == "vscode-notebook-cell:/A.py#X");
  CHECK(document_key("", kWindows).empty());
}

TEST_CASE("document_key: letters beyond ASCII fold, invalid UTF-8 is kept", "[document_key]") {
  CHECK(fold_case("Modèles MODÈLES Ёж ЁЖ ΑΒΓ Łódź ŁÓDŹ 模型") == "modèles modèles ёж ёж αβγ łódź łódź 模型");
  CHECK(fold_case("A\xff" "B") == "a\xff" "b");
  CHECK(document_key("file:///c%3A/Mod%C3%88les/A.py", kWindows) == document_key("file:///C:/modèles/a.py", kWindows));
  CHECK(file_key("Src\\Ёж.py", kWindows) == "src/ёж.py");
  CHECK(file_key("Src/A.py", kLinux) == "Src/A.py");
}

TEST_CASE("document_key: the workspace finds a document by any spelling of its URI", "[document_key]") {
  Workspace ws(kWindows);
  REQUIRE(ws.open({"file:///d%3A/Proj/A.py", "python", 1, "x = 1\n"}));
  REQUIRE(ws.get("file:///D:/proj/a.py"));
  CHECK(ws.get("file:///D:/proj/a.py")->snapshot->uri == "file:///d%3A/Proj/A.py");  // the URI as opened
  CHECK(ws.version("file:///d:/PROJ/A.PY") == 1);
  CHECK(ws.change("file:///D:/Proj/a.py", 2, {{std::nullopt, "x = 2\n"}}, PositionEncoding::kUtf16).ok());
  CHECK(ws.get("file:///d%3A/Proj/A.py")->snapshot->text == "x = 2\n");
  CHECK(ws.uris() == std::vector<std::string>{"file:///d%3A/Proj/A.py"});
  REQUIRE(ws.open({"file:///D:/PROJ/a.py", "python", 3, "y\n"}));  // a re-open under another spelling replaces it
  CHECK(ws.size() == 1);
  CHECK(ws.close("file:///d:/proj/A.py"));
  CHECK(ws.size() == 0);

  Workspace exact(kLinux);
  REQUIRE(exact.open({"file:///p/A.py", "python", 1, "x\n"}));
  CHECK_FALSE(exact.get("file:///p/a.py"));
  CHECK(exact.get("file:///p/A.py"));
}
