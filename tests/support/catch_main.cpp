// Catch2's main, compiled once for every test executable (it alone takes ~16 s).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
