# Whether every relative link in the README, the changelog and docs/ resolves: the file it
# names exists, and its #anchor, if any, is a heading of that file (as GitHub names headings:
# lower case, punctuation dropped, spaces as hyphens). Links in code are not links; links with
# a scheme (https:, mailto:) are not checked.
#   cmake -DROOT=<source folder> -P links.cmake

cmake_minimum_required(VERSION 3.16...4.1)

file(GLOB documents "${ROOT}/README.md" "${ROOT}/CHANGELOG.md" "${ROOT}/docs/*.md")
if(NOT documents)
  message(FATAL_ERROR "no README.md, CHANGELOG.md or docs/*.md under '${ROOT}'")
endif()

# A Markdown file's text without its fenced code blocks.
function(read_without_code_blocks path out)
  file(READ "${path}" text)
  string(ASCII 1 fence)
  string(REPLACE "\n```" "${fence}" text "\n${text}")
  string(REGEX REPLACE "${fence}[^${fence}]*${fence}" "" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# The anchors of a Markdown file's headings. List separators and brackets are dropped first:
# they would split CMake's list, and a heading's anchor leaves them out anyway.
function(anchors_of path out)
  read_without_code_blocks("${path}" text)
  string(REGEX REPLACE "[][;]" "" text "${text}")
  string(REGEX MATCHALL "\n#+ [^\n]*" headings "${text}")
  set(anchors)
  foreach(heading IN LISTS headings)
    string(REGEX REPLACE "^\n#+ " "" anchor "${heading}")
    string(TOLOWER "${anchor}" anchor)
    string(REGEX REPLACE "[^a-z0-9 _-]" "" anchor "${anchor}")
    string(REPLACE " " "-" anchor "${anchor}")
    list(APPEND anchors "${anchor}")
  endforeach()
  set(${out} "${anchors}" PARENT_SCOPE)
endfunction()

set(broken)
foreach(document IN LISTS documents)
  read_without_code_blocks("${document}" prose)
  string(REGEX REPLACE "`[^`\n]*`" "" prose "${prose}") # inline code holds no links
  get_filename_component(folder "${document}" DIRECTORY)
  file(RELATIVE_PATH shown "${ROOT}" "${document}")
  # "](" becomes a mark of its own: a bracket in a list element would upset CMake's lists.
  string(ASCII 2 opens)
  string(REPLACE "](" "${opens}" prose "${prose}")
  string(REGEX MATCHALL "${opens}[^)\n]+\\)" links "${prose}")
  foreach(link IN LISTS links)
    string(REGEX REPLACE "^${opens}(.*)\\)$" "\\1" target "${link}")
    if(target MATCHES "^[a-z]+:")
      continue()
    endif()
    string(FIND "${target}" "#" hash)
    if(hash EQUAL -1)
      set(path "${target}")
      set(anchor "")
    else()
      string(SUBSTRING "${target}" 0 ${hash} path)
      math(EXPR after "${hash} + 1")
      string(SUBSTRING "${target}" ${after} -1 anchor)
    endif()
    if(path STREQUAL "")
      set(resolved "${document}")
    else()
      get_filename_component(resolved "${path}" ABSOLUTE BASE_DIR "${folder}")
    endif()
    if(NOT EXISTS "${resolved}")
      list(APPEND broken "${shown}: (${target}) names no file")
    elseif(NOT anchor STREQUAL "")
      anchors_of("${resolved}" anchors)
      if(NOT anchor IN_LIST anchors)
        list(APPEND broken "${shown}: (${target}) names no heading of ${path}")
      endif()
    endif()
  endforeach()
endforeach()

if(broken)
  list(JOIN broken "\n  " lines)
  message(FATAL_ERROR "broken links:\n  ${lines}")
endif()
