#include "clreduce/kinds.hpp"

namespace clreduce {

std::string name_of(Path path) {
    switch (path) {
    case Path::work_group:
        return "work-group";
    case Path::sub_group:
        return "sub-group";
    case Path::tree:
        break;
    }
    return "tree";
}

std::string name_of(Factor factor) {
    return factor == Factor::device ? "device" : "textbook";
}

std::string name_of(Finish finish) {
    return finish == Finish::passes ? "passes" : "last-group";
}

} // namespace clreduce
