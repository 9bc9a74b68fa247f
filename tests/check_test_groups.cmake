# Run by the test <exe>.groups (cairn_check_test_groups in tests/CMakeLists.txt): compares the
# suites that EXECUTABLE lists with SUITES, the comma-separated suites of its ctest groups. A suite
# in no group would never run; a group naming a missing suite would run nothing and pass.
execute_process(COMMAND ${EXECUTABLE} --gtest_list_tests OUTPUT_VARIABLE listing
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${EXECUTABLE} --gtest_list_tests failed: ${status}")
endif()

string(REPLACE "," ";" grouped "${SUITES}")
list(SORT grouped)
set(duplicates ${grouped})
list(REMOVE_DUPLICATES duplicates)
if(NOT duplicates STREQUAL grouped)
  message(FATAL_ERROR "a suite is in more than one group: ${SUITES}")
endif()

string(REPLACE "\n" ";" lines "${listing}")
set(listed "")
foreach(line IN LISTS lines)
  # Suite lines start in the first column ("Suite." or "Prefix/Suite.  # TypeParam ..."); test
  # names are indented.
  if(line MATCHES "^([^ ]+)\\.")
    string(REGEX REPLACE "^.*/" "" suite "${CMAKE_MATCH_1}")
    list(APPEND listed ${suite})
  endif()
endforeach()
list(REMOVE_DUPLICATES listed)
list(SORT listed)

set(ungrouped ${listed})
list(REMOVE_ITEM ungrouped ${grouped})
set(missing ${grouped})
list(REMOVE_ITEM missing ${listed})
if(ungrouped OR missing)
  message(FATAL_ERROR "suites in no ctest group: [${ungrouped}]; groups' suites that do not "
                      "exist: [${missing}] (tests/e2e/CMakeLists.txt)")
endif()
list(LENGTH listed count)
message(STATUS "${count} suites, each in exactly one group")
