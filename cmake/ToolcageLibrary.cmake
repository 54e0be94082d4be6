# toolcage_library(NAME GLOB_DIR DEPS...): a static library of every .cpp in a folder.
# A folder with no sources yet gives an INTERFACE library, so the tree builds as it grows.
function(toolcage_library name dir)
  file(GLOB srcs CONFIGURE_DEPENDS "${dir}/*.cpp")
  if(srcs)
    add_library(${name} STATIC ${srcs})
    target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
    target_link_libraries(${name} PUBLIC ${ARGN})
  else()
    add_library(${name} INTERFACE)
    target_include_directories(${name} INTERFACE ${PROJECT_SOURCE_DIR})
    target_link_libraries(${name} INTERFACE ${ARGN})
  endif()
endfunction()
